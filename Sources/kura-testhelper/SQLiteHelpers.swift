import Foundation
import Kura

/// `hold-write-lock <db> <seconds>`: takes the write lock, prints `locked`, holds it, releases.
let sqliteHelperCommands: [HelperCommand] = [
  HelperCommand(name: "hold-write-lock") { arguments in
    guard arguments.count == 2, let seconds = Double(arguments[1]) else {
      throw CocoaError(.featureUnsupported)
    }
    let connection = try Connection(path: arguments[0])
    try connection.transaction(.immediate) {
      print("locked")
      fflush(nil)
      Thread.sleep(forTimeInterval: seconds)
    }
  }
]
