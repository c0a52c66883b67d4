import Foundation
import Synchronization
import Testing

@testable import Kura

@Suite("Hung child report")
struct HungChildReportTests {
  /// A child that exits while a process it started keeps its output pipe open is waited for
  /// until the timeout; the failure then names the process still holding the pipe, and the
  /// child as exited (a zombie), which tells a leaked pipe from a hung child.
  @Test func aTimeoutNamesTheProcessStillHoldingTheOutputPipe() throws {
    let marker = "kura-hung-\(UUID().uuidString.prefix(8))"
    let recorded = Mutex<[String]>([])
    withKnownIssue {
      _ = try? run(
        URL(fileURLWithPath: "/bin/bash"), ["-c", "exec -a \(marker) sleep 4 & exit 0"],
        environment: ProcessInfo.processInfo.environment, timeout: .seconds(1))
    } matching: { issue in
      recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
      return true
    }
    let report = try #require(recorded.withLock { $0 }.first { $0.contains("timed out") })
    #expect(report.contains("state Z"), "\(report)")
    #expect(report.contains("output pipe also held by:"), "\(report)")
    #expect(report.contains(marker), "\(report)")
  }

  /// A child that is itself stuck is reported with its threads' kernel waits.
  @Test func aTimeoutReportsAStuckChildsThreads() throws {
    let recorded = Mutex<[String]>([])
    withKnownIssue {
      _ = try? run(
        URL(fileURLWithPath: "/bin/sleep"), ["4"],
        environment: ProcessInfo.processInfo.environment, timeout: .seconds(1))
    } matching: { issue in
      recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
      return true
    }
    let report = try #require(recorded.withLock { $0 }.first { $0.contains("timed out") })
    #expect(report.contains("state S"), "\(report)")
    #expect(report.contains("wchan"), "\(report)")
    #expect(report.contains("output pipe held by no other process"), "\(report)")
  }

  /// A child working on a PostgreSQL store (`KURA_STORE_URL`) is reported with the cluster's
  /// busy backends: here one waiting for a lock another connection holds.
  @Test func aTimeoutOnAPostgreSQLStoreListsTheBusyBackends() throws {
    #if canImport(CLibPQ)
      let store = try freshStore(.postgres)
      let holder = try PostgresConnection(store.argument)
      try holder.execute("BEGIN; SELECT pg_advisory_lock(4242)")
      let waiter = try PostgresConnection(store.argument)
      let waiting = Thread { try? waiter.execute("SELECT pg_advisory_lock(4242)") }
      waiting.start()
      defer { try? holder.execute("ROLLBACK; SELECT pg_advisory_unlock_all()") }
      let recorded = Mutex<[String]>([])
      withKnownIssue {
        _ = try? run(
          URL(fileURLWithPath: "/bin/sleep"), ["4"], environment: store.environment,
          timeout: .seconds(1))
      } matching: { issue in
        recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
        return true
      }
      let report = try #require(recorded.withLock { $0 }.first { $0.contains("timed out") })
      #expect(report.contains("busy backends"), "\(report)")
      #expect(report.contains("Lock/advisory"), "\(report)")
    #endif
  }
}
