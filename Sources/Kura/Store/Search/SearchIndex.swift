import Foundation

/// A model's full-text index: an SQLite FTS5 table over its searchable columns
/// (`<table>_search`, external content: the model's own table), kept in step by triggers, so
/// every writer — any context, any process — updates it in the same transaction.
struct SearchIndex {
  let schema: ModelSchema
  let columns: [String]

  var tableName: String { schema.tableName + "_search" }
  var quotedName: String { quoteIdentifier(tableName) }

  var createSQL: String {
    let list = columns.map(quoteIdentifier).joined(separator: ", ")
    return "CREATE VIRTUAL TABLE \(quotedName) USING fts5(\(list), content=\(schema.quotedTable)"
      + ", content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')"
  }

  private var triggerSQL: [String] {
    let list = columns.map(quoteIdentifier).joined(separator: ", ")
    let new = columns.map { "new." + quoteIdentifier($0) }.joined(separator: ", ")
    let old = columns.map { "old." + quoteIdentifier($0) }.joined(separator: ", ")
    let insert = "INSERT INTO \(quotedName) (rowid, \(list)) VALUES (new.rowid, \(new));"
    let delete =
      "INSERT INTO \(quotedName) (\(quotedName), rowid, \(list)) VALUES ('delete', old.rowid, "
      + "\(old));"
    let table = schema.quotedTable
    return [
      "CREATE TRIGGER \(quoteIdentifier(tableName + "_insert")) AFTER INSERT ON \(table) "
        + "BEGIN \(insert) END",
      "CREATE TRIGGER \(quoteIdentifier(tableName + "_delete")) AFTER DELETE ON \(table) "
        + "BEGIN \(delete) END",
      "CREATE TRIGGER \(quoteIdentifier(tableName + "_update")) AFTER UPDATE ON \(table) "
        + "BEGIN \(delete) \(insert) END",
    ]
  }

  /// Creates the index (filling it from the table) when missing or made for other columns;
  /// drops it when no column is searchable any more.
  func prepare(_ db: Connection) throws {
    let existing = try db.queryFirst(
      "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(tableName)]
    ) { $0.string(at: 0) }
    let triggers = try db.query(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND name LIKE ?",
      [.text(schema.tableName), .text(tableName + "_%")]
    ) { $0.string(at: 0) }
    if existing == createSQL && triggers.count == 3 { return }
    if existing != nil { try db.execute("DROP TABLE \(quotedName)") }
    for trigger in triggers { try db.execute("DROP TRIGGER \(quoteIdentifier(trigger))") }
    guard !columns.isEmpty else { return }
    try db.execute(createSQL)
    for sql in triggerSQL { try db.execute(sql) }
    try db.run("INSERT INTO \(quotedName) (\(quotedName)) VALUES ('rebuild')")
  }

  /// An FTS5 query from what a user typed: every word must match, as a word prefix.
  static func query(for text: String) -> String? {
    let words = text.split { $0.isWhitespace || $0.isPunctuation && $0 != "'" }
    guard !words.isEmpty else { return nil }
    return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
      .joined(separator: " ")
  }
}
