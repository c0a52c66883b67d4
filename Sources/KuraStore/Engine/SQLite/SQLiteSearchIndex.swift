import Foundation
import KuraBase
import KuraSQLite

/// A model's full-text indexes on SQLite (the SQLite engine's part of ``SearchIndex``), kept in
/// step by triggers so every writer — any context, any process — updates them in the same
/// transaction:
///
/// - `<table>_search` (FTS5, `unicode61` tokenizer, diacritics removed) finds words and word
///   prefixes, ignoring case and accents: `cafe kyo` finds "Café Kyōto";
/// - `<table>_search_trigram` (FTS5, `trigram` tokenizer) finds any substring of three or more
///   characters, which is how text without spaces (Japanese, Chinese) is searched: `寺巡り` finds
///   "お寺巡り".
///
/// A word of one or two characters that is not the start of a word (`寺`) is looked for in the
/// searchable columns directly (`instr`, ASCII letters ignoring case): a scan of the table, since
/// no index holds substrings that short.
///
/// Both indexes use the model's table as external content (by rowid). An index built by an
/// older version (or for other columns) is dropped and rebuilt from the table when the container
/// opens.
package struct SQLiteSearchIndex: EngineSearchIndex {
  /// The index this is the engine's part of (its model and searchable columns).
  package let index: SearchIndex
  package var schema: ModelSchema { index.schema }
  package var columns: [String] { index.columns }

  package init(_ index: SearchIndex) { self.index = index }

  /// The word index.
  package var tableName: String { schema.tableName + "_search" }
  package var quotedName: String { quoteIdentifier(tableName) }
  /// The substring index.
  package var trigramTableName: String { schema.tableName + "_search_trigram" }
  package var quotedTrigramName: String { quoteIdentifier(trigramTableName) }

  private func createSQL(_ quotedName: String, tokenizer: String) -> String {
    let list = columns.map(quoteIdentifier).joined(separator: ", ")
    return "CREATE VIRTUAL TABLE \(quotedName) USING fts5(\(list), content=\(schema.quotedTable)"
      + ", content_rowid='rowid', tokenize='\(tokenizer)')"
  }

  /// The index tables, by name, with the SQL that creates them.
  private var tableSQL: [String: String] {
    [
      tableName: createSQL(quotedName, tokenizer: "unicode61 remove_diacritics 2"),
      trigramTableName: createSQL(quotedTrigramName, tokenizer: "trigram"),
    ]
  }

  /// The triggers, by name, with the SQL that creates them: each keeps both indexes in step.
  private var triggerSQL: [String: String] {
    let list = columns.map(quoteIdentifier).joined(separator: ", ")
    let new = columns.map { "new." + quoteIdentifier($0) }.joined(separator: ", ")
    let old = columns.map { "old." + quoteIdentifier($0) }.joined(separator: ", ")
    var insert = ""
    var delete = ""
    for index in [quotedName, quotedTrigramName] {
      insert += " INSERT INTO \(index) (rowid, \(list)) VALUES (new.rowid, \(new));"
      delete +=
        " INSERT INTO \(index) (\(index), rowid, \(list)) VALUES ('delete', old.rowid, \(old));"
    }
    let table = schema.quotedTable
    return [
      tableName + "_insert": "CREATE TRIGGER \(quoteIdentifier(tableName + "_insert")) AFTER "
        + "INSERT ON \(table) BEGIN\(insert) END",
      tableName + "_delete": "CREATE TRIGGER \(quoteIdentifier(tableName + "_delete")) AFTER "
        + "DELETE ON \(table) BEGIN\(delete) END",
      tableName + "_update": "CREATE TRIGGER \(quoteIdentifier(tableName + "_update")) AFTER "
        + "UPDATE ON \(table) BEGIN\(delete)\(insert) END",
    ]
  }

  /// Whether the indexes exist exactly as this version makes them (none when no column is
  /// searchable), so opening a current store has nothing to write.
  package func isCurrent(in db: Connection) throws -> Bool {
    let (tables, triggers) = try existing(in: db)
    if columns.isEmpty { return tables.isEmpty && triggers.isEmpty }
    return tables == tableSQL && triggers == triggerSQL
  }

  /// The index tables and triggers the store holds now, by name, with their SQL.
  private func existing(in db: Connection) throws -> (
    tables: [String: String], triggers: [String: String]
  ) {
    var tables: [String: String] = [:]
    for name in [tableName, trigramTableName] {
      tables[name] = try db.queryFirst(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]
      ) { $0.string(at: 0) }
    }
    var triggers: [String: String] = [:]
    for (name, sql) in try db.query(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? "
        + "AND substr(name, 1, ?) = ?",
      [.text(schema.tableName), .integer(Int64(tableName.utf8.count + 1)), .text(tableName + "_")],
      row: { ($0.string(at: 0), $0.string(at: 1)) })
    {
      triggers[name] = sql
    }
    return (tables, triggers)
  }

  /// Creates the indexes (filling them from the table) when missing, made by an older version
  /// or made for other columns; drops them when no column is searchable any more.
  package func prepare(_ db: Connection) throws {
    let (tables, triggers) = try existing(in: db)
    if !columns.isEmpty && tables == tableSQL && triggers == triggerSQL { return }
    for name in triggers.keys.sorted() { try db.execute("DROP TRIGGER \(quoteIdentifier(name))") }
    for name in tables.keys.sorted() { try db.execute("DROP TABLE \(quoteIdentifier(name))") }
    guard !columns.isEmpty else { return }
    for name in [tableName, trigramTableName] {
      try db.execute(tableSQL[name] ?? "")
      try db.run(
        "INSERT INTO \(quoteIdentifier(name)) (\(quoteIdentifier(name))) VALUES ('rebuild')")
    }
    for name in triggerSQL.keys.sorted() { try db.execute(triggerSQL[name] ?? "") }
  }

  /// An FTS5 query of the word index: every word must match, as a word prefix.
  private static func query(for words: [String]) -> String {
    words.map(quoted).map { $0 + "*" }.joined(separator: " ")
  }

  private static func quoted(_ word: String) -> String {
    "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  /// The condition on the model's table that every word satisfies: the start of a word (word
  /// index), or a substring (trigram index; a scan of the columns for words of one or two
  /// characters).
  package func condition(words: [String]) -> (sql: String, arguments: [DatabaseValue]) {
    let table = schema.quotedTable
    var parts: [String] = []
    var arguments: [DatabaseValue] = []
    for word in words {
      var alternatives = [
        "\(table).rowid IN (SELECT rowid FROM \(quotedName) WHERE \(quotedName) MATCH ?)"
      ]
      arguments.append(.text(Self.quoted(word) + "*"))
      if word.unicodeScalars.count >= 3 {
        alternatives.append(
          "\(table).rowid IN (SELECT rowid FROM \(quotedTrigramName) WHERE "
            + "\(quotedTrigramName) MATCH ?)")
        arguments.append(.text(Self.quoted(word)))
      } else {
        for column in columns {
          alternatives.append("instr(lower(\(table).\(quoteIdentifier(column))), lower(?)) > 0")
          arguments.append(.text(word))
        }
      }
      parts.append("(" + alternatives.joined(separator: " OR ") + ")")
    }
    return (parts.joined(separator: " AND "), arguments)
  }

  /// Best word matches first (FTS5 rank, negative); substring-only matches after them.
  package func order(words: [String]) -> (sql: String, arguments: [DatabaseValue]) {
    (
      "coalesce((SELECT rank FROM \(quotedName) WHERE \(quotedName) MATCH ? AND "
        + "\(quotedName).rowid = \(schema.quotedTable).rowid), 0)",
      [.text(Self.query(for: words))]
    )
  }
}
