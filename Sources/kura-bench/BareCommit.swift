import Foundation

#if canImport(CSQLite)
  import CSQLite
#else
  import SQLite3
#endif

/// The floor of a durable write: `count` single-row commits (`BEGIN IMMEDIATE`, one `INSERT OR
/// REPLACE`, `COMMIT`) through SQLite's C API alone, on a fresh file with Kura's pragmas (WAL,
/// synchronous=NORMAL). Returns the median time of `runs` batches.
func bareCommitFloor(path: String, count: Int, runs: Int = 5) -> Duration {
  var db: OpaquePointer?
  guard sqlite3_open(path, &db) == SQLITE_OK, let db else { return .zero }
  defer { sqlite3_close(db) }
  sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nil, nil, nil)
  sqlite3_exec(db, "CREATE TABLE t (k TEXT PRIMARY KEY, v)", nil, nil, nil)
  var statements: [OpaquePointer?] = []
  for sql in ["BEGIN IMMEDIATE", "INSERT OR REPLACE INTO t (k, v) VALUES ('k', ?)", "COMMIT"] {
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, sql, -1, &statement, nil)
    statements.append(statement)
  }
  defer { for statement in statements { sqlite3_finalize(statement) } }
  var value: Int64 = 0
  return median(runs: runs) {
    for _ in 0..<count {
      value += 1
      sqlite3_step(statements[0])
      sqlite3_reset(statements[0])
      sqlite3_bind_int64(statements[1], 1, value)
      sqlite3_step(statements[1])
      sqlite3_reset(statements[1])
      sqlite3_step(statements[2])
      sqlite3_reset(statements[2])
    }
  }
}
