#if canImport(CLibPQ)
  import Foundation
  import KuraTestSupport
  import Testing

  extension PostgreSQLTests {
    /// `kura store soak`, short: real writer and reader processes, a real server crashed.
    @Suite("PostgreSQL crash soak")
    struct PostgresCrashSoakTests {
      /// The lines of a soak's summary, after checking it exited 0.
      private func soak(_ arguments: [String]) throws -> [String] {
        let directory = TemporaryDirectory()
        let result = try run(
          try executable("kura"), ["store", "soak"] + arguments,
          environment: directory.environment, timeout: .seconds(400))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr.suffix(4_000))")
        return result.stdout.split(separator: "\n").map(String.init)
      }

      /// The number before `word` in `line` (`12 acknowledged` → 12).
      private func count(_ word: String, in line: String?) -> Int? {
        guard let line, let range = line.range(of: " " + word) else { return nil }
        return Int(line[..<range.lowerBound].split(separator: " ").last ?? "")
      }

      /// The acknowledged saves of a soak of `writers` writers, after checking that they were
      /// more than 100, all stored, none reported failed but stored, every counter exact, and
      /// the soak's verdict.
      private func expectNothingLost(_ lines: [String], writers: Int) throws -> Int {
        let saves = lines.first { $0.hasPrefix("saves: \(writers) writers, ") }
        let acknowledged = try #require(count("acknowledged", in: saves))
        #expect(acknowledged > 100, "\(lines)")
        #expect(
          lines.contains(
            "table: \(acknowledged) saves; 0 lost, 0 reported failed but committed, 0 committed "
              + "but never reported"), "\(lines)")
        #expect(
          lines.contains("counters: \(writers) of \(writers) equal their committed write blocks"))
        #expect(lines.last == "soak: nothing lost, doubled or skipped")
        return acknowledged
      }

      /// Three crashes, by `pg_ctl stop -m immediate` or SIGKILL of the postmaster: every
      /// acknowledged save is stored and delivered once to every reader, in token order.
      @Test func threeCrashesLoseNothingAndDoubleNothing() throws {
        let lines = try soak(["--crashes", "3", "--writers", "3", "--seed", "7"])
        #expect(lines.count == 6, "\(lines)")
        #expect(lines.first?.hasPrefix("crashes: 3 (") == true, "\(lines)")
        let acknowledged = try expectNothingLost(lines, writers: 3)
        #expect(
          lines.contains(
            "feeds: feed \(acknowledged), feed \(acknowledged), history \(acknowledged) change "
              + "sets; 0 duplicated tokens, 0 skipped, 0 delivered twice, 0 out of order, 0 with "
              + "another token than their save's"), "\(lines)")
      }

      /// Three crashes with the writers keeping 5 saves of history (trims, and the trigger that
      /// keeps their commit ids, at nearly every save): nothing lost, no failed save stored, no
      /// token shared, every counter exact.
      @Test func threeCrashesWithLittleHistoryLoseNothing() throws {
        let lines = try soak([
          "--crashes", "3", "--writers", "3", "--seed", "9", "--history-count", "5",
        ])
        _ = try expectNothingLost(lines, writers: 3)
        #expect(
          lines.contains(
            "feeds: not read (history kept: 5 saves); 0 duplicated tokens among the acknowledged "
              + "saves"), "\(lines)")
      }

      /// Without crashes, four writers and the readers for 8 s: no reader skips a save. (A
      /// writer between taking its transaction id and its lock was missing from the history
      /// horizon, and its save was skipped: 14 of 18,024 in 20 s.)
      @Test func readersSkipNoSaveOfWritersRunningInParallel() throws {
        let lines = try soak(["--crashes", "0", "--seconds", "8", "--seed", "8"])
        let saves = lines.first { $0.hasPrefix("saves: 4 writers, ") }
        let acknowledged = try #require(count("acknowledged", in: saves))
        #expect(saves?.contains(" 0 reported failed, 0 outcome unknown") == true, "\(lines)")
        #expect(
          lines.contains(
            "feeds: feed \(acknowledged), feed \(acknowledged), history \(acknowledged) change "
              + "sets; 0 duplicated tokens, 0 skipped, 0 delivered twice, 0 out of order, 0 with "
              + "another token than their save's"), "\(lines)")
        #expect(lines.last == "soak: nothing lost, doubled or skipped")
      }
    }
  }
#endif
