import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraSyncServer

/// `kura store info|schema|dump|check`: inspects a model store (read-only), in an SQLite file or
/// a PostgreSQL database; `kura store migrate` (StoreMigrateCommand.swift) migrates one;
/// `kura store soak` (StoreSoakCommand.swift) crashes a throwaway PostgreSQL server under a
/// store's writers and readers.
let storeCommand = Command(
  name: "store",
  abstract: "Inspects a model store: its models, schema, rows and integrity.",
  discussion: """
    <store> is a store file, or a PostgreSQL database as a URL (postgresql://user@host/app) or a \
    connection string ("host=/run/postgresql dbname=app"); a password is best given through \
    ~/.pgpass (PGPASSFILE) or PGPASSWORD, and is never printed. info, schema, dump and check \
    only read: they open a file read-only and a database in read-only transactions, and never \
    create or change anything. migrate changes the store. soak tests the PostgreSQL engine \
    against server crashes, on a throwaway server of its own.
    """,
  subcommands: [
    storeInfoCommand, storeSchemaCommand, storeDumpCommand, storeCheckCommand,
    storeMigrateCommand, storeSoakCommand, storeSoakWriterCommand, storeSoakReaderCommand,
  ])

/// The `<store>` argument of every `kura store` command.
let storeArgument = Argument(
  "store",
  help: "The store: a file such as default.store, or a PostgreSQL URL such as "
    + "postgresql://host/app.")

/// The store the `<store>` argument names; a folder is a usage error that names the store files
/// in it.
func storeLocation(_ invocation: Invocation) throws -> StoreLocation {
  let text: String = try invocation.argument("store")
  let location = try StoreLocation(text, what: "<store>", command: invocation.commandPath)
  if case .file(let url) = location {
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
      isFolder.boolValue
    {
      let stores = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
        .filter { $0.hasSuffix(".store") || $0.hasSuffix(".sqlite") }.sorted()
      let hint =
        stores.isEmpty
        ? "give the path of a store file, such as `\(url.path)/default.store`"
        : "give the path of a store file in it: "
          + stores.prefix(5).map { "`\(url.appendingPathComponent($0).path)`" }
          .joined(separator: ", ")
      throw UsageError(
        "`\(url.path)` is not a valid value for <store>: it is a folder; \(hint).",
        command: invocation.commandPath)
    }
  }
  return location
}

/// Opens the inspector, turning a missing or foreign store into the library's clear error.
private func inspector(_ invocation: Invocation) throws -> StoreInspector {
  try StoreInspector(configuration: try storeLocation(invocation).configuration)
}

let storeInfoCommand = Command(
  name: "info",
  abstract:
    "Prints the store's models, their row counts, the schema version and the size; for a "
    + "PostgreSQL database, the engine and the database, server and user instead of the file.",
  arguments: [storeArgument],
  supportsJSON: true,
  run: { invocation in
    let info = try inspector(invocation).info()
    if invocation.json { return try invocation.printJSON(info) }
    switch info.engine {
    case .sqlite:
      print(visible("file            \(info.location)"))
    case .postgresql:
      print("engine          PostgreSQL")
      print(visible("database        \(info.location)"))
    }
    print("size            \(info.sizeBytes) bytes")
    let none = info.isEmpty ? "none (empty: no store in it yet)" : "none (not made by Kura)"
    print("schema version  \(info.schemaVersion.map(String.init) ?? none)")
    print("models          \(info.models.count)")
    for model in info.models {
      let table = model.table == model.name ? "" : " (table \(model.table))"
      print(visible("  \(model.name)\(table): \(model.rows) \(model.rows == 1 ? "row" : "rows")"))
    }
  })

let storeSchemaCommand = Command(
  name: "schema",
  abstract: "Prints each model's table: columns, unique attributes and indexes.",
  arguments: [storeArgument],
  supportsJSON: true,
  run: { invocation in
    let inspector = try inspector(invocation)
    let tables = try inspector.schema()
    if invocation.json { return try invocation.printJSON(tables) }
    if tables.isEmpty {
      print(
        try inspector.isEmpty
          ? "No models: the store is empty (nothing has been saved in it yet)."
          : "No models: the store has no model tables.")
    }
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
  arguments: [storeArgument, Argument("model", help: "The model name, such as Student.")],
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
  abstract: "Checks the store's integrity; exits 1 when it is damaged.",
  discussion: """
    On an SQLite file: SQLite's integrity check of the whole file, then Kura's checks. On a \
    PostgreSQL database there is no such check (the server keeps its own files): Kura's checks \
    only, and the output says so. Kura's checks: the store's metadata (a Kura store this version \
    reads), each model's table and recorded columns, references that point at no row, and text \
    keys (and unique text values) that Swift's == calls equal.
    """,
  arguments: [storeArgument],
  supportsJSON: true,
  run: { invocation in
    let problems: [String]
    var engine = StoreInspector.Engine.sqlite
    do {
      let inspector = try inspector(invocation)
      engine = inspector.engine
      problems = try inspector.check()
    } catch let error as StoreError where error.code == .damaged {
      problems = [(error.underlying as? SQLiteError)?.message ?? error.message]
    } catch let error as StoreError where invocation.json {
      // A file that is not a store (or can't be opened) is a failed check too: JSON says so.
      try invocation.printJSON(CheckReport(ok: false, problems: ["\(error)"], note: nil))
      throw ExitCode.failure
    }
    let note =
      engine == .postgresql
      ? "PostgreSQL has no integrity check like SQLite's (the server keeps its own files): "
        + "checked the metadata, each model's table and columns, references and text keys."
      : nil
    if invocation.json {
      try invocation.printJSON(CheckReport(ok: problems.isEmpty, problems: problems, note: note))
    } else {
      if problems.isEmpty { print("ok") }
      for problem in problems { print(visible(problem)) }
      if let note { print("note: " + note) }
    }
    if !problems.isEmpty { throw ExitCode.failure }
  })

/// What `kura store check --json` prints.
private struct CheckReport: Encodable {
  var ok: Bool
  var problems: [String]
  /// What was not checked, on engines without an integrity check.
  var note: String?
}
