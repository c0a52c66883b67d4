#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraSync

  import KuraSyncCore

  import KuraSyncServer

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  /// `kura sync serve --tls-cert --tls-key`: HTTPS on libmicrohttpd's GnuTLS, with a
  /// self-signed certificate made by `openssl` for 127.0.0.1.
  ///
  /// A client trusts the server through its system's trust store (URLSession on Linux reads
  /// only that: no delegate override, no variable). The replica process here runs in a mount
  /// namespace of its own (`unshare --mount`; the tests run as root) where the system bundle
  /// is a copy with the test's certificate added — what `update-ca-certificates` would do,
  /// without touching the machine's.
  @Suite("Sync over TLS")
  struct SyncTLSTests {
    private static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    /// A self-signed certificate and key for 127.0.0.1 in `directory`.
    private static func certificate(_ directory: TemporaryDirectory, name: String = "server")
      throws -> (certificate: URL, key: URL)
    {
      let certificate = directory.file("\(name).crt")
      let key = directory.file("\(name).key")
      let made = try run(
        URL(fileURLWithPath: "/usr/bin/env"),
        [
          "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path,
          "-out", certificate.path, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
          "subjectAltName=IP:127.0.0.1",
        ], environment: directory.environment)
      try #require(made.status == 0, "openssl failed: \(made.stderr)")
      return (certificate, key)
    }

    /// `kura sync serve` with the certificate; returns the process and its https URL.
    private static func server(
      database: String, tokens: URL, tls: (certificate: URL, key: URL),
      directory: TemporaryDirectory
    ) throws -> (ChildProcess, URL) {
      let process = try ChildProcess(
        try executable("kura"),
        [
          "sync", "serve", "--store", database, "--listen", "127.0.0.1:0", "--tokens", tokens.path,
          "--tls-cert", tls.certificate.path, "--tls-key", tls.key.path,
        ], environment: directory.environment)
      let line = try #require(
        process.waitForLine(timeout: 60) { $0.hasPrefix("Serving sync on https://") })
      let address = try #require(line.split(separator: " ").first { $0.hasPrefix("https://") })
      return (process, try #require(URL(string: String(address))))
    }

    @Test func aReplicaTrustingTheCertificateSyncsOverHTTPSAndOneThatDoesntIsTold() async throws {
      let directory = TemporaryDirectory()
      let database = try PostgresCluster.shared().freshDatabaseURL()
      let token = try makeToken(space: "family")
      let tokens = directory.file("tokens")
      try "\(token.line)\n".write(to: tokens, atomically: true, encoding: .utf8)
      let tls = try Self.certificate(directory)
      let (server, url) = try Self.server(
        database: database, tokens: tokens, tls: tls, directory: directory)
      defer { server.send(SIGKILL) }
      // The system bundle with the certificate added, seen only inside the replica's namespace.
      let bundle = directory.file("bundle.pem")
      try
        (try Data(contentsOf: URL(fileURLWithPath: Self.systemBundle))
        + Data(contentsOf: tls.certificate)).write(to: bundle)
      let replica = try SyncReplicaProcess(
        store: directory.file("a.store"), server: url, token: token, directory: directory
      ) { helper in
        let command =
          "mount --bind '\(bundle.path)' \(Self.systemBundle) && exec "
          + helper.map { "'\($0)'" }.joined(separator: " ")
        return (URL(fileURLWithPath: "/usr/bin/unshare"), ["--mount", "sh", "-c", command])
      }
      #expect(try replica.ask("save 1 Kyoto 900") == "saved")
      #expect(try replica.ask("sync") == "synced")
      #expect(try replica.ask("pending") == "pending 0")
      let logged = try PostgresConnection(database).queryFirst(
        "SELECT count(*) FROM kura_sync_log WHERE space = 'family'"
      ) { $0.int64(at: 0) }
      #expect(logged == 1)
      // This test process trusts only the system's bundle: its engine is told why it can't
      // sync, and keeps its save.
      var configuration = ModelConfiguration.url(directory.file("b.store"))
      var settings = SyncSettings(server: url, space: "family", token: token.token)
      settings.pollInterval = .seconds(3600)
      settings.waitForChanges = nil
      configuration.sync = settings
      let container = try ModelContainer(for: SyncTrip.self, configurations: configuration)
      let sync = try SyncEngine(container: container)
      defer { sync.stop() }
      let context = ModelContext(container)
      try context.insert(SyncTrip(id: UUID(), name: "Nara", budget: 1, rating: 1))
      try context.save()
      await #expect {
        try await sync.syncNow()
      } throws: { error in
        (error as? SyncError)?.code == .untrustedServer
      }
      #expect(sync.status.failure?.code == .untrustedServer)
      #expect(sync.status.failure?.message.contains("certificate") == true)
      #expect(sync.status.pending == 1)
    }

    /// Missing, unreadable or non-PEM files, half the pair, and a key of another certificate
    /// are refused with the file and the fix (SyncServerTests checks a public address without
    /// TLS).
    @Test func badCertificateFilesAreRefusedNamingTheFile() throws {
      let directory = TemporaryDirectory()
      let tokens = directory.file("tokens")
      try "\(try makeToken(space: "family").line)\n".write(
        to: tokens, atomically: true, encoding: .utf8)
      let tls = try Self.certificate(directory)
      let other = try Self.certificate(directory, name: "other")
      let notPEM = directory.file("not.pem")
      try "just text\n".write(to: notPEM, atomically: true, encoding: .utf8)
      let database = try PostgresCluster.shared().freshDatabaseURL()
      func serve(_ arguments: [String]) throws -> ProcessResult {
        try run(
          try executable("kura"),
          ["sync", "serve", "--store", database, "--tokens", tokens.path] + arguments,
          environment: directory.environment)
      }
      let missing = try serve([
        "--tls-cert", directory.file("missing.crt").path, "--tls-key", tls.key.path,
      ])
      #expect(missing.status == 64)
      #expect(
        missing.stderr.contains(
          "Can't read the TLS certificate `\(directory.file("missing.crt").path)` (--tls-cert)"))
      let text = try serve(["--tls-cert", tls.certificate.path, "--tls-key", notPEM.path])
      #expect(text.status == 64)
      #expect(
        text.stderr.contains(
          "The TLS private key `\(notPEM.path)` (--tls-key) is not a PEM private key"))
      let half = try serve(["--tls-cert", tls.certificate.path])
      #expect(half.status == 64)
      #expect(half.stderr.contains("Give both --tls-cert and --tls-key"))
      let mismatched = try serve(["--tls-cert", tls.certificate.path, "--tls-key", other.key.path])
      #expect(mismatched.status == 1)
      #expect(mismatched.stderr.contains("libmicrohttpd refused them"))
      #expect(mismatched.stderr.contains("`\(other.key.path)`"))
    }
  }
#endif
