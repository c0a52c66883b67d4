import Foundation
import Kura
import KuraCLI

/// `kura store info|schema|dump|check`: inspects a model store file (read-only);
/// `kura store migrate` (StoreMigrateCommand.swift) migrates one.
let storeCommand = Command(
  name: "store",
  abstract: "Inspects a model store: its models, schema, rows and integrity.",
  discussion: "info, schema, dump and check open the file read-only; migrate changes it.",
  subcommands: [
    storeInfoCommand, storeSchemaCommand, storeDumpCommand, storeCheckCommand,
    storeMigrateCommand,
  ])

private let fileArgument = Argument("file", help: "The store file, such as default.store.")

/// Opens the inspector, turning a missing or foreign file into the library's clear error.
private func inspector(_ invocation: Invocation) throws -> StoreInspector {
  let path: String = try invocation.argument("file")
  return try StoreInspector(url: storeURL(path))
}

/// The store a `<file>` argument names: a file, or a PostgreSQL database by its
/// `postgresql://` URL.
func storeURL(_ argument: String) -> URL {
  if argument.hasPrefix("postgresql://") || argument.hasPrefix("postgres://"),
    let url = URL(string: argument)
  {
    return url
  }
  return URL(fileURLWithPath: argument)
}

/// How messages name the store at `url`: the file's name, or a PostgreSQL store's database and
/// server (never its password).
func storeName(_ url: URL) -> String {
  if PostgresLocation.isPostgresURL(url), let location = try? PostgresLocation(url: url) {
    return location.storeName
  }
  return url.lastPathComponent
}

let storeInfoCommand = Command(
  name: "info",
  abstract: "Prints the store's models, their row counts, the schema version and the file size.",
  arguments: [fileArgument],
  supportsJSON: true,
  run: { invocation in
    let info = try inspector(invocation).info()
    if invocation.json { return try invocation.printJSON(info) }
    print(visible("file            \(info.path)"))
    print("size            \(info.sizeBytes) bytes")
    print("schema version  \(info.schemaVersion.map(String.init) ?? "none (not made by Kura)")")
    print("models          \(info.models.count)")
    for model in info.models {
      let table = model.table == model.name ? "" : " (table \(model.table))"
      print(visible("  \(model.name)\(table): \(model.rows) \(model.rows == 1 ? "row" : "rows")"))
    }
  })

let storeSchemaCommand = Command(
  name: "schema",
  abstract: "Prints each model's table: columns, unique attributes and indexes.",
  arguments: [fileArgument],
  supportsJSON: true,
  run: { invocation in
    let tables = try inspector(invocation).schema()
    if invocation.json { return try invocation.printJSON(tables) }
    for (number, table) in tables.enumerated() {
      if number > 0 { print("") }
      print(visible("\(table.model) (table \(table.table))"))
      for column in table.columns {
        var line = "  \(column.name) \(column.type)"
        if let kind = column.kind { line += " [\(kind)]" }
        if column.primaryKey {
          line += " PRIMARY KEY"
        } else if !column.nullable {
          line += " NOT NULL"
        }
        print(visible(line))
      }
      for index in table.indexes {
        let what = index.unique ? "unique" : "index"
        print(visible("  \(what) \(index.name) (\(index.columns.joined(separator: ", ")))"))
      }
    }
  })

let storeDumpCommand = Command(
  name: "dump",
  abstract: "Prints every row of one model's table.",
  discussion: """
    As text: a header line, then one line per row with the columns separated by tabs; a tab, \
    newline, carriage return or backslash inside a value is written as \\t, \\n, \\r or \\\\, \
    so every row stays on one line. --json prints the values as they are.
    """,
  arguments: [fileArgument, Argument("model", help: "The model name, such as Student.")],
  supportsJSON: true,
  run: { invocation in
    let model: String = try invocation.argument("model")
    let (columns, rows) = try inspector(invocation).dump(model: model)
    if invocation.json {
      let objects = rows.map { Dictionary(uniqueKeysWithValues: zip(columns, $0)) }
      return try invocation.printJSON(objects)
    }
    print(columns.map { visible(escapedForDump($0)) }.joined(separator: "\t"))
    for row in rows {
      print(row.map { visible(escapedForDump($0.description)) }.joined(separator: "\t"))
    }
  })

/// A value on one line of `kura store dump`'s text output: tabs, line breaks and backslashes
/// escaped, so a value can't split its row or shift its columns.
func escapedForDump(_ text: String) -> String {
  guard text.unicodeScalars.contains(where: { "\t\n\r\\".unicodeScalars.contains($0) }) else {
    return text
  }
  var escaped = ""
  for character in text {
    switch character {
    case "\t": escaped += "\\t"
    case "\n": escaped += "\\n"
    case "\r": escaped += "\\r"
    case "\r\n": escaped += "\\r\\n"
    case "\\": escaped += "\\\\"
    default: escaped.append(character)
    }
  }
  return escaped
}

let storeCheckCommand = Command(
  name: "check",
  abstract: "Checks the store file's integrity; exits 1 when it is damaged.",
  arguments: [fileArgument],
  supportsJSON: true,
  run: { invocation in
    let problems: [String]
    do {
      problems = try inspector(invocation).check()
    } catch let error as StoreError where error.code == .damaged {
      problems = [error.underlying?.message ?? error.message]
    } catch let error as StoreError where invocation.json {
      // A file that is not a store (or can't be opened) is a failed check too: JSON says so.
      try invocation.printJSON(CheckReport(ok: false, problems: ["\(error)"]))
      throw ExitCode.failure
    }
    if invocation.json {
      try invocation.printJSON(CheckReport(ok: problems.isEmpty, problems: problems))
    } else if problems.isEmpty {
      print("ok")
    } else {
      for problem in problems { print(visible(problem)) }
    }
    if !problems.isEmpty { throw ExitCode.failure }
  })

/// What `kura store check --json` prints.
private struct CheckReport: Encodable {
  var ok: Bool
  var problems: [String]
}
