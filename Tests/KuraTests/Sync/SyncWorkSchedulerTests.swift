#if canImport(CLibPQ) && canImport(KuraSyncServer)
  import Foundation
  import KuraSyncServer
  import Synchronization
  import Testing

  /// The sync server's database threads: a space flooded with work leaves the others theirs.
  @Suite("Sync work scheduler")
  struct SyncWorkSchedulerTests {
    @Test func aFloodedSpaceRunsAtMostItsShareAndAnotherSpaceRunsBesideIt() throws {
      let scheduler = SyncWorkScheduler(workers: 4, perSpace: 2)
      defer { scheduler.stop() }
      let release = DispatchSemaphore(value: 0)
      let running = Mutex((now: 0, most: 0))
      let started = DispatchSemaphore(value: 0)
      for _ in 0..<10 {
        scheduler.submit(space: "flood") {
          running.withLock {
            $0.now += 1
            $0.most = max($0.most, $0.now)
          }
          started.signal()
          release.wait()
          running.withLock { $0.now -= 1 }
        }
      }
      // Two flood jobs run (its share), blocked; the other eight wait.
      #expect(started.wait(timeout: .now() + 10) == .success)
      #expect(started.wait(timeout: .now() + 10) == .success)
      let quiet = DispatchSemaphore(value: 0)
      scheduler.submit(space: "quiet") { quiet.signal() }
      #expect(quiet.wait(timeout: .now() + 10) == .success)
      #expect(scheduler.waiting == 8)
      for _ in 0..<10 { release.signal() }
      for _ in 0..<8 { #expect(started.wait(timeout: .now() + 10) == .success) }
      #expect(running.withLock { $0.most } == 2)
    }

    @Test func aSpaceWithItsQueueFullIsRefused() {
      let scheduler = SyncWorkScheduler(workers: 1, perSpace: 1, maximumQueued: 2)
      defer { scheduler.stop() }
      let release = DispatchSemaphore(value: 0)
      let started = DispatchSemaphore(value: 0)
      #expect(
        scheduler.submit(space: "a") {
          started.signal(); release.wait()
        })
      #expect(started.wait(timeout: .now() + 10) == .success)
      #expect(scheduler.submit(space: "a") {})
      #expect(scheduler.submit(space: "a") {})
      #expect(!scheduler.submit(space: "a") {})
      #expect(scheduler.submit(space: "b") {})
      release.signal()
    }
  }
#endif
