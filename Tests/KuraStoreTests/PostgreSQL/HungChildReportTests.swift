import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Synchronization
import Testing

@testable import Kura

@Suite("Hung child report")
struct HungChildReportTests {
  /// Runs `arguments` with a one-second timeout, which they overrun, and returns the failure
  /// `run(_:_:environment:input:timeout:)` records.
  private func timeoutReport(
    _ executable: String, _ arguments: [String],
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> String {
    let recorded = Mutex<[String]>([])
    withKnownIssue {
      _ = try? run(
        URL(fileURLWithPath: executable), arguments, environment: environment,
        timeout: .seconds(1))
    } matching: { issue in
      recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
      return true
    }
    return try #require(recorded.withLock { $0 }.first { $0.contains("timed out") })
  }

  /// A child that exits while a process it started keeps its output pipe open is waited for
  /// until the timeout; the failure then names the process still holding the pipe, and the
  /// child as exited (a zombie), which tells a leaked pipe from a hung child.
  @Test func aTimeoutNamesTheProcessStillHoldingTheOutputPipe() throws {
    let marker = "kura-hung-\(UUID().uuidString.prefix(8))"
    let report = try timeoutReport("/bin/bash", ["-c", "exec -a \(marker) sleep 4 & exit 0"])
    #expect(report.contains("state Z"), "\(report)")
    #expect(report.contains("output pipe also held by:"), "\(report)")
    #expect(report.contains(marker), "\(report)")
  }

  /// A child that is itself stuck is reported with its threads' kernel waits.
  @Test func aTimeoutReportsAStuckChildsThreads() throws {
    let report = try timeoutReport("/bin/sleep", ["4"])
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
      let report = try timeoutReport("/bin/sleep", ["4"], environment: store.environment)
      #expect(report.contains("busy backends"), "\(report)")
      #expect(report.contains("Lock/advisory"), "\(report)")
    #endif
  }
}
