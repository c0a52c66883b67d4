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
  /// connections cut mid-request and (in the first run) PostgreSQL restarted, each checked.
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
    }
  }
#endif
