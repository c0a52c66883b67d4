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
  import KuraStoreCLI

  /// A device with a valid token that sends what it likes: raw pushes (JSON written by hand, so
  /// values no Kura replica would send) to a real `kura sync serve`, as its own replica.
  struct HostileReplica: Sendable {
    let server: URL
    let space: String
    let token: String
    /// The server's PostgreSQL database, where ``push(sequence:_:)`` logs what the server's
    /// catalogue refuses as a server from before the catalogue did.
    let database: String
    let replica = UUID()

    /// A change setting `property` of `model` `id` to `value` (the wire's JSON of a value,
    /// such as `{"integer":"5"}` or `null`), stamped now plus `tick` milliseconds.
    func set(
      _ model: String, id: String, _ property: String, _ value: String, incarnation: Int64 = 1,
      tick: UInt64 = 0
    ) -> String {
      "{\"id\":\(json(id)),\"incarnation\":\(incarnation),\"model\":\(json(model)),"
        + "\"property\":\(json(property)),\"stamp\":\"\(stamp(tick))\",\"value\":\(value)}"
    }

    /// The delete of `model` `id` in `incarnation`.
    func delete(_ model: String, id: String, incarnation: Int64, tick: UInt64 = 0) -> String {
      "{\"deleted\":true,\"id\":\(json(id)),\"incarnation\":\(incarnation),"
        + "\"model\":\(json(model)),\"stamp\":\"\(stamp(tick))\"}"
    }

    /// Pushes one save (number `sequence` of this replica) holding `changes`; returns the
    /// status (200: the server logged it).
    ///
    /// These tests are of the replicas' admission: what reaches them must be what the server
    /// logged. The server's catalogue refuses most hostile changes itself (400, tested in
    /// `SyncCatalogTests`); a space's log can still hold such changes, logged before the
    /// catalogue existed, so a refused save is then written to the log as a server from
    /// before the catalogue wrote it, and 200 returned.
    func push(sequence: Int64, _ changes: [String]) async throws -> Int {
      let body =
        "{\"replica\":\"\(SyncStamp.hex(replica))\",\"saves\":[{\"changes\":["
        + changes.joined(separator: ",") + "],\"sequence\":\(sequence)}]}"
      let url = server.appendingPathComponent("v1/spaces/\(space)/push")
      let status = try await send("POST", url, token: token, body: Data(body.utf8)).status
      guard status == 400 else { return status }
      try logAsAServerBeforeTheCatalogue(
        sequence: sequence, changes: "[" + changes.joined(separator: ",") + "]")
      return 200
    }

    /// Appends one save to the space's log, in its own transaction, as `kura sync serve`
    /// did before it kept a catalogue.
    private func logAsAServerBeforeTheCatalogue(sequence: Int64, changes: String) throws {
      let connection = try PostgresConnection(database)
      try connection.execute("BEGIN")
      try connection.run(
        "INSERT INTO kura_sync_spaces (space) VALUES (?) ON CONFLICT (space) DO NOTHING",
        [.text(space)])
      let head = try #require(
        try connection.queryFirst(
          "UPDATE kura_sync_spaces SET head = head + 1 WHERE space = ? RETURNING head",
          [.text(space)]
        ) { $0.int64(at: 0) })
      try connection.run(
        "INSERT INTO kura_sync_log (space, position, replica, sequence, changes) "
          + "VALUES (?, ?, ?, ?, ?)",
        [
          .text(space), .integer(head), .text(SyncStamp.hex(replica)), .integer(sequence),
          .text(changes),
        ])
      try connection.run(
        "INSERT INTO kura_sync_replicas (replica, space, acknowledged) VALUES (?, ?, ?) "
          + "ON CONFLICT (replica) DO UPDATE SET acknowledged = excluded.acknowledged",
        [.text(SyncStamp.hex(replica)), .text(space), .integer(sequence)])
      try connection.execute("COMMIT")
    }

    private func stamp(_ tick: UInt64) -> String {
      SyncStamp(
        wall: HybridLogicalClock.systemWallClock() + tick, counter: 0, replica: replica
      ).text
    }

    private func json(_ text: String) -> String {
      String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
  }

  /// The wire's JSON of values.
  enum WireValue {
    static func text(_ text: String) -> String {
      "{\"text\":"
        + String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self) + "}"
    }

    static func integer(_ integer: Int64) -> String { "{\"integer\":\"\(integer)\"}" }

    /// A REAL from its bits.
    static func real(bits: UInt64) -> String {
      let hex = String(bits, radix: 16)
      return "{\"real\":\"\(String(repeating: "0", count: 16 - hex.count) + hex)\"}"
    }

    /// A date as Kura stores it (its `timeIntervalSinceReferenceDate`).
    static func date(_ date: Date) -> String {
      real(bits: date.timeIntervalSinceReferenceDate.bitPattern)
    }
  }
#endif
