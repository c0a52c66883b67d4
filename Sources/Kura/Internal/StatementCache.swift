/// A connection's prepared statements by their SQL (SQLite's and PostgreSQL's alike). The 8
/// used last are looked for first, without hashing: the store's SQL strings are built once per
/// schema, so comparing one with itself is a pointer comparison.
struct StatementCache<Prepared: AnyObject> {
  private var bySQL: [String: Prepared] = [:]
  private var recent: [(sql: String, statement: Prepared)] = []
  private var nextRecentSlot = 0

  /// The statement prepared for `sql` before, if any; it becomes one of the recent ones.
  @inline(__always)
  mutating func statement(for sql: String) -> Prepared? {
    let length = sql.utf8.count
    for entry in recent where entry.sql.utf8.count == length && entry.sql == sql {
      return entry.statement
    }
    guard let statement = bySQL[sql] else { return nil }
    remember(sql, statement)
    return statement
  }

  /// Keeps `statement`, just prepared for `sql`.
  mutating func insert(_ statement: Prepared, for sql: String) {
    bySQL[sql] = statement
    remember(sql, statement)
  }

  /// Every statement kept.
  var statements: Dictionary<String, Prepared>.Values { bySQL.values }

  /// Forgets every statement.
  mutating func removeAll() {
    bySQL.removeAll()
    recent.removeAll()
    nextRecentSlot = 0
  }

  /// Keeps a statement among the recent ones (8, replaced in turn).
  private mutating func remember(_ sql: String, _ statement: Prepared) {
    if recent.count < 8 {
      recent.append((sql, statement))
    } else {
      recent[nextRecentSlot] = (sql, statement)
      nextRecentSlot = (nextRecentSlot + 1) % 8
    }
  }
}
