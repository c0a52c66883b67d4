/// A connection's prepared statements by their SQL (SQLite's and PostgreSQL's alike). The 16
/// used last are looked for first, without hashing, those used most first: the store's SQL
/// strings are built once per schema, so comparing one with itself is a pointer comparison.
///
/// Inlined into each engine (`@inlinable`), so that its generic code is specialized there and
/// never looks a generic type up at run time.
package struct StatementCache<Prepared: AnyObject> {
  @usableFromInline var bySQL: [String: Prepared] = [:]
  // The recent statements as `AnyObject`: a lookup the compiler left generic (a call from
  // another module) then needs no metadata of generic types built at run time, which cost more
  // than the lookup (about 1,300 instructions a call).
  @usableFromInline var recent: [(sql: String, statement: AnyObject)] = []
  @usableFromInline var nextRecentSlot = 0

  /// An empty cache.
  @inlinable
  package init() {}

  /// The statement prepared for `sql` before, if any; it becomes one of the recent ones.
  @inlinable @inline(__always)
  package mutating func statement(for sql: String) -> Prepared? {
    // Looked through in place: iterating the array would copy each entry (a retain and a
    // release of its SQL and of its statement per entry passed). An entry found moves one place
    // forward, so the statements used most come to be looked at first.
    let found = recent.withUnsafeMutableBufferPointer { entries -> AnyObject? in
      let length = sql.utf8.count
      for index in entries.indices
      where entries[index].sql.utf8.count == length && entries[index].sql == sql {
        let statement = entries[index].statement
        if index > 0 {
          let earlier = entries[index - 1]
          entries[index - 1] = entries[index]
          entries[index] = earlier
        }
        return statement
      }
      return nil
    }
    if let found { return unsafeDowncast(found, to: Prepared.self) }
    guard let statement = bySQL[sql] else { return nil }
    remember(sql, statement)
    return statement
  }

  /// Keeps `statement`, just prepared for `sql`.
  @inlinable
  package mutating func insert(_ statement: Prepared, for sql: String) {
    bySQL[sql] = statement
    remember(sql, statement)
  }

  /// Every statement kept.
  @inlinable
  package var statements: Dictionary<String, Prepared>.Values { bySQL.values }

  /// Forgets every statement.
  @inlinable
  package mutating func removeAll() {
    bySQL.removeAll()
    recent.removeAll()
    nextRecentSlot = 0
  }

  /// How many statements are kept among the recent ones: more than a save with sync on uses in
  /// turn, so none of them is looked for by hashing its SQL text.
  @usableFromInline static var recentCount: Int { 16 }

  /// Keeps a statement among the recent ones (``recentCount``, replaced in turn).
  @inlinable
  mutating func remember(_ sql: String, _ statement: Prepared) {
    if recent.count < Self.recentCount {
      recent.append((sql, statement))
    } else {
      recent[nextRecentSlot] = (sql, statement)
      nextRecentSlot = (nextRecentSlot + 1) % Self.recentCount
    }
  }
}
