import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore

/// Commands for the tests of ``Preferences/standard`` when its file can't be opened (it is a
/// process-wide value, so each test runs in a process of its own):
///
/// - `standard-preferences immutable`: uses the standard suite (whose folder the test made
///   unwritable), prints what writes and reads did, prints `waiting`, waits for a line on
///   standard input (the test makes the folder writable), then writes and reads again.
/// - `standard-preferences locked`: the same, with the suite's file locked by another
///   connection of this process until the first writes have failed.
let standardPreferencesHelperCommands: [HelperCommand] = [
  HelperCommand(name: "standard-preferences") { arguments in
    guard arguments.count == 1 else { throw HelperUsage("standard-preferences immutable|locked") }
    let count = Preferences.Key<Int>("count", default: 0)
    var lock: Connection?
    if arguments[0] == "locked" {
      let locations = try Locations.current()
      let url = locations.preferencesDirectory.appendingPathComponent(
        locations.appIdentifier + ".sqlite")
      try Preferences(fileURL: url).set(10, for: count)
      let connection = try Connection(path: url.path)
      try connection.execute("BEGIN IMMEDIATE")
      lock = connection
    }
    let standard = Preferences.standard
    standard[count] = 1
    print("subscript: \(standard.lastWriteError.map { "\($0)" } ?? "no error")")
    print("read \(standard[count])")
    do {
      try standard.set(2, for: count)
      print("set saved")
    } catch {
      print("set: \(error)")
    }
    if let lock {
      try lock.execute("COMMIT")
    } else {
      print("waiting")
      fflush(nil)
      _ = readLine()
    }
    try standard.set(3, for: count)
    print("set saved, read \(standard[count])")
    standard[count] += 1
    print("read \(standard[count])")
    let reopened = try Preferences(locations: try Locations.current())
    print("in the file: \(reopened[count])")
  }
]
