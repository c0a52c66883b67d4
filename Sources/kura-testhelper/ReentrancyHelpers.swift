import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import Synchronization

/// Commands for the re-entrancy tests, run in a child process so that a regression (a deadlock,
/// a trap, an endless loop) fails the test instead of hanging or crashing the test run:
///
/// - `reentrant-document <file>`: inside `update`, reads `value`, then tries to change the
///   store; prints what it saw.
/// - `reentrant-preferences <file> update|batch`: inside `update` (or `batch`), reads the suite
///   and writes to it through the suite itself; prints what happened.
/// - `reentrant-query`: runs a query again, with the same SQL, from inside its row closure;
///   prints the rows seen.
let reentrancyHelperCommands: [HelperCommand] = [
  HelperCommand(name: "reentrant-document") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let store = try DocumentStore(
      .url(URL(fileURLWithPath: arguments[0])), defaultValue: CounterDocument(),
      options: DocumentOptions(observesOtherProcesses: false))
    try store.replace(with: CounterDocument(count: 1))
    var changes: AsyncStream<CounterDocument>?
    try store.update { value in
      changes = store.changes
      print("read \(store.value.count)")
      value.count = 5
      print("read again \(store.value.count)")
      do {
        try store.replace(with: CounterDocument(count: 9))
        print("nested change saved")
      } catch {
        print("nested change: \(error)")
      }
    }
    print("after \(store.value.count)")
    // The stream asked for inside the change gets the change (coalesced with its first value).
    let first = Mutex<Int?>(nil)
    let done = DispatchSemaphore(value: 0)
    let reading = Task { [changes] in
      var iterator = changes?.makeAsyncIterator()
      let value = await iterator?.next()
      first.withLock { $0 = value?.count }
      done.signal()
    }
    done.wait()
    reading.cancel()
    print("stream \(first.withLock { $0 }.map(String.init) ?? "none")")
  },
  HelperCommand(name: "reentrant-preferences") { arguments in
    guard arguments.count == 2 else { throw CocoaError(.featureUnsupported) }
    let preferences = try Preferences(fileURL: URL(fileURLWithPath: arguments[0]))
    let count = Preferences.Key<Int>("count", default: 0)
    preferences[count] = 1
    let attempt = {
      print("read \(preferences[count])")
      do {
        try preferences.set(7, for: count)
        print("nested set saved")
      } catch {
        print("nested set: \(error)")
      }
      preferences[count] = 8
      print("subscript: \(preferences.lastWriteError.map { "\($0)" } ?? "no error")")
    }
    if arguments[1] == "update" {
      try preferences.update(count) { value in
        attempt()
        return value + 1
      }
    } else {
      try preferences.batch { batch in
        attempt()
        batch[count] = batch[count] + 1
      }
    }
    print("after \(preferences[count])")
  },
  HelperCommand(name: "reentrant-query") { _ in
    let connection = try Connection(path: ":memory:")
    try connection.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);")
    let sql = "SELECT x FROM t ORDER BY x"
    var outer = 0
    let pairs = try connection.query(sql) { row -> String in
      outer += 1
      // Before the fix the inner query reset the outer statement, which then started over.
      if outer > 100 { throw CocoaError(.featureUnsupported) }
      let inner = try connection.query(sql) { $0.int64(at: 0) }
      return "\(row.int64(at: 0)):\(inner.map(String.init).joined(separator: ","))"
    }
    print(pairs.joined(separator: " "))
  },
]
