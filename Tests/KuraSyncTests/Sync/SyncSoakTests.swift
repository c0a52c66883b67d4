#if canImport(CLibPQ)
  import Foundation
  import KuraPostgreSQL
  import KuraSync
  import KuraSyncCore
  import KuraSyncServer
  import KuraTestSupport
  import KuraEngineTestSupport
  import KuraCLI
  import Testing

  /// A short `kura sync soak`: two seeded runs of replicas and servers killed with SIGKILL,
  /// connections cut mid-request and (in the first run) PostgreSQL restarted, each checked, with
  /// a hostile replica pushing lies throughout.
  @Suite("Sync soak")
  struct SyncSoakTests {
    @Test func aShortSoakLosesNothingAndPrintsWhatEachRunChecked() throws {
      let directory = TemporaryDirectory()
      let result = try run(
        try executable("kura"),
        ["sync", "soak", "--runs", "2", "--steps", "30", "--seconds", "240", "--seed", "42"],
        environment: directory.environment, timeout: .seconds(400))
      #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
      let lines = result.stdout.split(separator: "\n").map(String.init)
      #expect(lines.count == 3, "\(lines)")
      #expect(lines.first?.hasPrefix("run 1 (seed 42): ") == true)
      #expect(lines.first?.contains(" 1 PostgreSQL restarts; each save on the server once") == true)
      #expect(lines.dropFirst().first?.hasPrefix("run 2 (seed 43): ") == true)
      #expect(lines.last?.hasPrefix("soak: 2 runs in ") == true)
      #expect(lines.last?.hasSuffix("no save lost or applied twice") == true)
      // The hostile replica lied in both runs, and each lie was refused or quarantined (a run
      // fails otherwise): the counts are printed.
      for line in lines.prefix(2) {
        #expect(line.contains(" lies refused (400), "), "\(line)")
        #expect(line.contains(" impersonations refused (403), "), "\(line)")
      }
      let refused = lines.prefix(2).compactMap { line -> Int? in
        guard let range = line.range(of: "hostile replica: ") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
      }
      #expect(refused.count == 2 && refused.reduce(0, +) > 0, "\(lines)")
    }
  }
#endif
