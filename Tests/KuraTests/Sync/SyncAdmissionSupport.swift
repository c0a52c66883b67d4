#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  /// A device with a valid token that sends what it likes: raw pushes (JSON written by hand, so
  /// values no Kura replica would send) to a real `kura sync serve`, as its own replica.
  struct HostileReplica: Sendable {
    let server: URL
    let space: String
    let token: String
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
    func push(sequence: Int64, _ changes: [String]) async throws -> Int {
      let body =
        "{\"replica\":\"\(SyncStamp.hex(replica))\",\"saves\":[{\"changes\":["
        + changes.joined(separator: ",") + "],\"sequence\":\(sequence)}]}"
      let url = server.appendingPathComponent("v1/spaces/\(space)/push")
      return try await send("POST", url, token: token, body: Data(body.utf8)).status
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
