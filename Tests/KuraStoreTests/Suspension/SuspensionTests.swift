import Foundation
import Kura
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether some other process holds a lock on `path`: a POSIX lock (SQLite's) on any byte, or a
/// `flock` (the document lock). Taking either lock ourselves, without waiting, answers it.
private func isLockedByAnotherProcess(_ path: String) -> Bool {
  let fd = open(path, O_RDWR | O_CLOEXEC)
  guard fd >= 0 else { return false }  // never created: nobody locks it
  defer { close(fd) }
  var whole = flock()
  whole.l_type = Int16(F_WRLCK)
  whole.l_whence = Int16(SEEK_SET)
  whole.l_start = 0
  whole.l_len = 0
  if fcntl(fd, F_SETLK, &whole) != 0 { return true }
  whole.l_type = Int16(F_UNLCK)
  _ = fcntl(fd, F_SETLK, &whole)
  if flock(fd, LOCK_EX | LOCK_NB) != 0 { return true }
  _ = flock(fd, LOCK_UN)
  return false
}

@Suite("Suspending: no file lock held while an iOS app is suspended (0xdead10cc)")
struct SuspensionTests {
  /// The files of the child's store, suite, document and pool that any lock could be on.
  private func lockableFiles(in folder: URL) -> [String] {
    ["store.sqlite", "preferences.sqlite", "pool.sqlite"].flatMap { name in
      ["", "-shm", "-wal"].map { folder.appendingPathComponent(name + $0).path }
    } + [".cashData.json.lock", "cashData.json"].map { folder.appendingPathComponent($0).path }
  }

  @Test func suspendReleasesEveryLockAndLaterUseWorks() throws {
    let directory = TemporaryDirectory()
    let child = try ChildProcess(
      try executable("kura-testhelper"), ["suspension-cycle", directory.url.path],
      environment: directory.environment)

    // Inside a running save, suspending can't release that save's lock, and says so.
    #expect(child.waitForLine { $0.hasPrefix("inflight") } == "inflight false false")
    #expect(child.waitForLine { $0.hasPrefix("open") } == "open 1 1 1 1")
    let files = lockableFiles(in: directory.url)
    let lockedWhileOpen = files.filter(isLockedByAnotherProcess)
    // Open connections keep SQLite's WAL locks (this is what iOS kills a suspended app for).
    #expect(lockedWhileOpen.contains { $0.hasSuffix("store.sqlite-shm") })
    #expect(lockedWhileOpen.contains { $0.hasSuffix("preferences.sqlite-shm") })
    #expect(lockedWhileOpen.contains { $0.hasSuffix("pool.sqlite-shm") })

    child.send(line: "suspend")
    #expect(child.waitForLine { $0.hasPrefix("suspended") } == "suspended true")
    #expect(files.filter(isLockedByAnotherProcess) == [])

    // Used while suspended: everything works, and no lock is kept afterwards.
    child.send(line: "use")
    #expect(child.waitForLine { $0.hasPrefix("used") } == "used 2 2 2 2")
    #expect(files.filter(isLockedByAnotherProcess) == [])

    // Resumed: connections stay open again between operations.
    child.send(line: "resume")
    #expect(child.waitForLine { $0.hasPrefix("resumed") } == "resumed 3 3 3 3")
    #expect(files.filter(isLockedByAnotherProcess).contains { $0.hasSuffix("store.sqlite-shm") })

    child.send(line: "exit")
    #expect(child.waitForExit() == 0)
  }

  @Test func noBackgroundReadWhileSuspendedAndObserversCatchUpOnResume() throws {
    let directory = TemporaryDirectory()
    let suite = directory.url.appendingPathComponent("preferences.sqlite")
    let writer = try Preferences(fileURL: suite)
    try writer.setValue(.integer(1), forKey: "uses")
    let child = try ChildProcess(
      try executable("kura-testhelper"), ["suspension-watch", directory.url.path],
      environment: directory.environment)
    #expect(child.waitForLine { $0 == "seen 1" } != nil)

    child.send(line: "suspend")
    #expect(child.waitForLine { $0.hasPrefix("suspended") } == "suspended true")
    let watcher = try KernelThread.soleThreadWaitingInPoll(of: child.processIdentifier)
    try watcher.waitUntilWaitingInPoll()
    let before = try watcher.blockedCount()
    try writer.setValue(.integer(5), forKey: "uses")
    // The write's inotify event is queued when the write returns. The old watcher read the suite
    // then (taking SQLite's locks again); a suspended process must not. Once the child's watcher
    // thread has woken for it and gone back to waiting, it has handled the event.
    try watcher.waitUntilWaitingInPoll(blockedMoreThan: before)
    #expect(!child.outputLines.contains("seen 5"))
    let files = ["", "-wal", "-shm"].map { suite.path + $0 }
    #expect(files.filter(isLockedByAnotherProcess) == [])

    child.send(line: "resume")
    #expect(child.waitForLine { $0 == "resumed" } != nil)
    // What changed while suspended reaches the observer after resume.
    #expect(child.waitForLine { $0 == "seen 5" } != nil)
    child.send(line: "exit")
    #expect(child.waitForExit() == 0)
  }
}
