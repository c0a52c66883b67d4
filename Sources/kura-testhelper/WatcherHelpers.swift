import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import Synchronization

// The "one file watcher per process" checks run here, in a child: they hold thousands of file
// descriptors, and Foundation's `Process.run()` in the test process (which every sharing test
// calls) can crash reading `/proc/self/fd` while that many are open.
//
// - `watch-suites <folder> <count>`: opens <count> suites `group-<n % 10>/suite-<n>.sqlite`
//   from 8 threads and observes key `count` of each; prints `watching <suites> inotify
//   <instances> polled <polled>`, then `seen <value>` for each value of the last suite's key.
// - `watch-documents <folder> <count>`: opens <count> documents `document-<n>.json` (`[String:
//   Int]`, empty by default); prints `watching <documents> inotify <instances> polled
//   <polled>`, then `seen <count key>` for each value of the last document.
let watcherHelperCommands: [HelperCommand] = [
  HelperCommand(name: "watch-suites") { arguments in
    guard arguments.count == 2, let count = Int(arguments[1]), count > 0 else {
      throw CocoaError(.featureUnsupported)
    }
    let folder = URL(fileURLWithPath: arguments[0])
    let key = Preferences.Key<Int>("count", default: 0)
    for group in 0..<10 {
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent("group-\(group)"), withIntermediateDirectories: true)
    }
    // Opened from 8 threads: opening a suite flushes its new WAL, and the flushes overlap.
    let opened = Mutex<[Int: (Preferences, AsyncStream<Int>)]>([:])
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      for number in stride(from: worker, to: count, by: 8) {
        let url = folder.appendingPathComponent("group-\(number % 10)/suite-\(number).sqlite")
        guard let suite = try? Preferences(fileURL: url) else { continue }
        let stream = suite.changes(of: key)
        opened.withLock { $0[number] = (suite, stream) }
      }
    }
    let all = opened.withLock { $0 }
    print("watching \(all.count) inotify \(inotifyInstances()) polled \(polledCount())")
    guard let (suite, stream) = all[count - 1] else { exit(1) }
    withExtendedLifetime((all, suite)) {
      printEachValue(of: stream) { "seen \($0)" }
    }
  },
  HelperCommand(name: "watch-documents") { arguments in
    guard arguments.count == 2, let count = Int(arguments[1]), count > 0 else {
      throw CocoaError(.featureUnsupported)
    }
    let folder = URL(fileURLWithPath: arguments[0])
    var stores: [DocumentStore<[String: Int]>] = []
    for number in 0..<count {
      stores.append(
        try DocumentStore(
          .url(folder.appendingPathComponent("document-\(number).json")), defaultValue: [:]))
    }
    print("watching \(stores.count) inotify \(inotifyInstances()) polled \(polledCount())")
    let stream = stores[count - 1].changes
    withExtendedLifetime(stores) {
      printEachValue(of: stream) { "seen \($0["count"] ?? 0)" }
    }
  },
]

private func polledCount() -> Int { KuraLibrary.fileWatcherCounts.polled }

/// How many inotify instances this process holds (Linux; -1 elsewhere), read with the C
/// library.
private func inotifyInstances() -> Int {
  #if os(Linux)
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    let folder = dirfd(directory)
    var count = 0
    var target = [CChar](repeating: 0, count: 64)
    while let entry = readdir(directory) {
      // Only the name's own bytes are read: a `dirent` copied whole may run past the buffer.
      let offset = MemoryLayout<dirent>.offset(of: \.d_name) ?? 19
      let length = UnsafeRawPointer(entry).advanced(by: offset)
        .withMemoryRebound(to: CChar.self, capacity: 1) { name in
          readlinkat(folder, name, &target, target.count - 1)
        }
      guard length > 0 else { continue }
      let name = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if name == "anon_inode:inotify" { count += 1 }
    }
    return count
  #else
    return -1
  #endif
}
