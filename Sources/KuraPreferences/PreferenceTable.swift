import Foundation
import KuraBase
import KuraSQLite

/// The SQL of a suite file: one row per key with its type, its value and the version of the write
/// transaction that last changed it. A removed key keeps its row with a NULL type (a tombstone) so
/// that other processes learn of the removal by reading the rows newer than what they have seen.
package enum PreferenceTable {
  /// One row as read back.
  package struct Row: Sendable {
    package var name: String
    /// `nil` for a removed key (or a row whose value can't be read).
    package var value: PreferenceValue?
    package var version: Int64
    /// Why a stored value can't be read (an unknown type, a value cut short), with its stored
    /// type name; `nil` when it can, or the key was removed.
    package var unreadable: Unreadable? = nil
  }

  /// A stored value this version can't read: its `type` column and why.
  package struct Unreadable: Error, Equatable, Sendable {
    package var storedType: String
    package var reason: String

    package init(type: String) {
      storedType = type
      if PreferenceValue.storedTypeNames.contains(type) {
        reason = "its stored \(type) value can't be read back (cut short or not valid)"
      } else {
        reason = "`\(type)` is a type this version of Kura does not know (written by a newer one?)"
      }
    }
  }

  /// Creates the table (keyed by name without a rowid, so a write touches two pages: the row's
  /// and the version index's).
  ///
  /// - Throws: ``ForeignDatabase`` when the file already holds another program's tables and no
  ///   preferences: nothing is added to it.
  package static func createSchema(_ db: Connection) throws {
    let tables = try db.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ) { $0.string(at: 0) }
    if !tables.isEmpty && !tables.contains("kura_preference") {
      throw ForeignDatabase(tables: tables)
    }
    try db.execute(
      """
      CREATE TABLE IF NOT EXISTS kura_preference (
        key TEXT NOT NULL PRIMARY KEY,
        type TEXT,
        value,
        version INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS kura_preference_version ON kura_preference (version);
      """)
  }

  /// Looks at an existing file before anything opens it for writing, with a connection that
  /// leaves it as found (no WAL switch, nothing created beside it).
  ///
  /// - Throws: ``ForeignDatabase`` for another program's database, or a `kura_preference` table
  ///   with other columns; ``SQLiteError`` for a file that is not a database or is damaged.
  package static func checkBeforeOpening(path: String) throws {
    // Another process may set up or remove the `-wal` and `-shm` files between two reads of a
    // connection that leaves them as found: such a read is made again.
    for attempt in 1... {
      do {
        return try checkOnce(path: path)
      } catch let error as SQLiteError where attempt < 5 && error.code.isTransientForInspection {
        usleep(UInt32(2000 * attempt))
      }
    }
  }

  private static func checkOnce(path: String) throws {
    var info = stat()
    guard stat(path, &info) == 0, info.st_size > 0 else { return }
    let db = try Connection(path: path, mode: .inspect)
    let tables = try db.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ) { $0.string(at: 0) }
    if !tables.isEmpty && !tables.contains("kura_preference") {
      throw ForeignDatabase(tables: tables)
    }
    guard tables.contains("kura_preference") else { return }
    let columns = try db.query("SELECT name FROM pragma_table_info('kura_preference')") {
      $0.string(at: 0)
    }
    if columns != ["key", "type", "value", "version"] {
      throw ForeignDatabase(tables: tables, preferenceColumns: columns)
    }
  }

  /// The highest version written so far (0 for a new file).
  /// Whether the file has the table (one opened only to read may not).
  package static func exists(_ db: Connection) throws -> Bool {
    try db.queryFirst(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kura_preference'"
    ) { $0.int64(at: 0) } != nil
  }

  package static func latestVersion(_ db: Connection) throws -> Int64 {
    try db.queryFirst("SELECT max(version) FROM kura_preference") { $0.int64(at: 0) } ?? 0
  }

  /// Every row changed after `version`, oldest first.
  package static func rows(_ db: Connection, after version: Int64) throws -> [Row] {
    try db.query(
      "SELECT key, type, value, version FROM kura_preference WHERE version > ? ORDER BY version",
      [.integer(version)]
    ) { statement in
      var row = Row(name: statement.string(at: 0), value: nil, version: statement.int64(at: 3))
      if !statement.isNull(at: 1) {
        let type = statement.string(at: 1)
        row.value = PreferenceValue(type: type, storage: statement.value(at: 2))
        if row.value == nil { row.unreadable = Unreadable(type: type) }
      }
      return row
    }
  }

  /// The stored value of one key, read from the file.
  ///
  /// - Throws: ``Unreadable`` when a value is stored but can't be read, or an SQLite error.
  package static func value(_ db: Connection, name: String) throws -> PreferenceValue? {
    let row = try db.queryFirst(
      "SELECT type, value FROM kura_preference WHERE key = ? AND type IS NOT NULL", [.text(name)]
    ) { statement -> Result<PreferenceValue, Unreadable> in
      let type = statement.string(at: 0)
      guard let value = PreferenceValue(type: type, storage: statement.value(at: 1)) else {
        return .failure(Unreadable(type: type))
      }
      return .success(value)
    }
    return try row?.get()
  }

  /// Stores a value under a key.
  package static func put(_ db: Connection, name: String, value: PreferenceValue, version: Int64)
    throws
  {
    let (type, storage) = try value.storageColumns()
    let statement = try db.cachedStatement(
      """
      INSERT INTO kura_preference (key, type, value, version) VALUES (?, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET type = excluded.type, value = excluded.value,
        version = excluded.version
      """)
    try statement.bind(name, at: 1)
    try statement.bind(type, at: 2)
    try statement.bind(storage, at: 3)
    try statement.bind(version, at: 4)
    try statement.execute()
  }

  /// Removes a key; returns whether it held a value.
  package static func remove(_ db: Connection, name: String, version: Int64) throws -> Bool {
    try db.run(
      """
      UPDATE kura_preference SET type = NULL, value = NULL, version = ?
      WHERE key = ? AND type IS NOT NULL
      """, [.integer(version), .text(name)])
    return db.changes > 0
  }

  /// The names of every key holding a value.
  package static func names(_ db: Connection) throws -> [String] {
    try db.query("SELECT key FROM kura_preference WHERE type IS NOT NULL ORDER BY key") {
      $0.string(at: 0)
    }
  }
}

/// An SQLite file that belongs to another program: it has tables and none of them is Kura's.
package struct ForeignDatabase: Error {
  package var tables: [String]
  /// The columns of a `kura_preference` table that is not a suite's.
  package var preferenceColumns: [String]? = nil

  /// The reason shown in ``PreferencesError/Code/cannotOpen``.
  package var reason: String {
    if let columns = preferenceColumns {
      let shown = columns.map { "`\($0)`" }.joined(separator: ", ")
      return
        "it is another program's SQLite database (its `kura_preference` table has the columns "
        + "\(shown), not `key`, `type`, `value`, `version`), not a preferences suite"
    }
    let shown = tables.prefix(3).map { "`\($0)`" }.joined(separator: ", ")
    return
      "it is another program's SQLite database (tables \(shown)\(tables.count > 3 ? ", …" : "")),"
      + " not a preferences suite"
  }
}
