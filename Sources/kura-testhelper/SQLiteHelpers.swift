import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore

/// Commands exercising the SQLite layer from another process:
/// - `hold-write-lock <db> <seconds>`: takes the write lock, inserts `child` into table `t`,
///   prints `locked`, holds the lock for `seconds`, commits.
/// - `pool-insert <db> <value>`: inserts `value` into table `t` through a DatabasePool.
let sqliteHelperCommands: [HelperCommand] = [
  HelperCommand(name: "hold-write-lock") { arguments in
    guard arguments.count == 2, let seconds = Double(arguments[1]) else {
      throw HelperUsage("hold-write-lock <db> <seconds>")
    }
    let connection = try Connection(path: arguments[0])
    try connection.transaction(.immediate) {
      try connection.run("INSERT INTO t (a) VALUES ('child')")
      print("locked")
      fflush(nil)
      Thread.sleep(forTimeInterval: seconds)
    }
  },
  HelperCommand(name: "pool-insert") { arguments in
    guard arguments.count == 2 else { throw HelperUsage("pool-insert <db> <value>") }
    let pool = try DatabasePool(path: arguments[0])
    try pool.write { db in try db.run("INSERT INTO t (a) VALUES (?)", [.text(arguments[1])]) }
    print("inserted")
  },
]

/// A helper command called with the wrong arguments.
struct HelperUsage: Error, CustomStringConvertible {
  let usage: String
  init(_ usage: String) { self.usage = usage }
  var description: String { "usage: kura-testhelper \(usage)" }
}
