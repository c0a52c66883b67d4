import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraSyncServer

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kura store migrate <store> --schema <json>`: migrates a store to models described in JSON,
/// with a progress bar on a terminal.
let storeMigrateCommand = Command(
  name: "migrate",
  abstract: "Migrates a store to the models described in a JSON file, in one transaction.",
  discussion:
    "Start from `kura store schema --json <store>`, change it (add a column with \"default\", "
    + "rename one with \"renamedFrom\", drop one, widen a kind), then migrate. A change that "
    + "could lose data is refused and nothing is changed; dropping a column that holds values "
    + "needs --allow-data-loss. Apps migrate their own stores when they open them; this is for "
    + "stores whose app is not at hand.",
  arguments: [storeArgument],
  options: [
    Option(
      "schema", help: "The target models: a JSON array like `kura store schema --json` prints.",
      valueName: "json-file")
  ],
  flags: [
    Flag(
      "allow-data-loss",
      help: "Drop the columns the models no longer describe even when they hold values.")
  ],
  run: { invocation in
    let store = try storeLocation(invocation)
    // As given, but never with a password.
    let path = PostgresLocation.redacted(try invocation.argument("store"))
    guard let schemaPath: String = try invocation.option("schema") else {
      throw UsageError(
        "Missing --schema: give the target models as JSON (start from "
          + "`kura store schema --json \(path)`).", command: invocation.commandPath)
    }
    let models: [ModelDescription]
    let bad = "`\(schemaPath)` is not a valid value for --schema: "
    let fix = " Write one with `kura store schema --json \(path) > models.json` and edit it."
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: schemaPath))
    } catch {
      let why =
        !FileManager.default.fileExists(atPath: schemaPath)
        ? "there is no such file"
        : "the file can't be read (\(error.localizedDescription))"
      throw UsageError(bad + why + "." + fix, command: invocation.commandPath)
    }
    do {
      models = try JSONDecoder().decode([ModelDescription].self, from: data)
    } catch let error as DecodingError {
      throw UsageError(
        bad + "it is not a JSON array of models like `kura store schema --json` prints ("
          + describe(error) + ")." + fix, command: invocation.commandPath)
    }
    let bar = ProgressBar(enabled: isatty(STDERR_FILENO) != 0)
    let changed = try StoreMigration.migrate(
      try store.configuration, to: models, allowingDataLoss: invocation.flag("allow-data-loss")
    ) { progress in
      bar.show(progress)
    }
    bar.finish()
    if changed {
      let target = URL(fileURLWithPath: schemaPath).lastPathComponent
      print(visible("Migrated \(store.name) to the models in \(target)."))
    } else {
      print(visible("Nothing to migrate: \(store.name) already matches the models."))
    }
  })

/// A one-line progress bar on standard error (drawn only on a terminal).
final class ProgressBar: Sendable {
  let enabled: Bool

  init(enabled: Bool) { self.enabled = enabled }

  func show(_ progress: MigrationProgress) {
    guard enabled else { return }
    let width = 30
    let filled = Int(progress.fractionCompleted * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
    let percent = Int(progress.fractionCompleted * 100)
    let line =
      "\r\(progress.model) [\(bar)] \(percent)% \(progress.completedRows)/\(progress.totalRows) "
      + "rows: \(progress.step)"
    FileHandle.standardError.write(Data((line + "\u{1B}[K").utf8))
  }

  func finish() {
    if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
  }
}

/// A decoding error in a few words: where in the JSON, and what was wrong.
func describe(_ error: DecodingError) -> String {
  func place(_ context: DecodingError.Context) -> String {
    let path = context.codingPath.map { key in
      key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
    }
    .joined()
    return path.isEmpty ? "" : " at `\(path.hasPrefix(".") ? String(path.dropFirst()) : path)`"
  }
  switch error {
  case .dataCorrupted(let context):
    return context.codingPath.isEmpty
      ? "it is not valid JSON" : "a value is not valid\(place(context))"
  case .keyNotFound(let key, let context):
    return "the key `\(key.stringValue)` is missing\(place(context))"
  case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
    let name = "\(type)"
    let expected =
      name.hasPrefix("Array") ? "an array" : name.hasPrefix("Dictionary") ? "an object" : name
    return "expected \(expected)\(place(context))"
  @unknown default:
    return "\(error)"
  }
}
