#if canImport(CLibPQ)
  import Foundation

  extension SyncService {
    /// The query arguments the endpoints read (the transport hands over these only).
    package static let queryArguments = ["after", "limit", "replica", "settled", "model", "id"]

    /// A pull's answer: the logged saves after `after` (at most `limit`), ending at the save
    /// that brings the page to ``SyncPullResponse/maximumChanges`` changes (the first save is
    /// always sent, however large).
    ///
    /// The log keeps each save's changes as the JSON the push was answered with (written by
    /// this server, keys sorted), so the page splices that text into the answer instead of
    /// decoding and encoding it again; the changes are counted by their `"incarnation":`
    /// member, which each change has once and which can't occur inside a JSON string.
    static func page(
      space: String, after: Int64, limit: Int, head: Int64, _ connection: PostgresConnection
    ) throws -> SyncHTTPResponse {
      var body = Data(#"{"head":\#(head),"saves":["#.utf8)
      var saves = 0
      var changes = 0
      var cursor = after
      batches: while saves < limit {
        let batch = min(64, limit - saves)
        let rows = try connection.query(
          "SELECT position, replica, sequence, changes FROM kura_sync_log "
            + "WHERE space = ? AND position > ? ORDER BY position LIMIT ?",
          [.text(space), .integer(cursor), .integer(Int64(batch))]
        ) { ($0.int64(at: 0), $0.string(at: 1), $0.int64(at: 2), $0.string(at: 3)) }
        for (position, replica, sequence, text) in rows {
          if saves > 0 { body.append(UInt8(ascii: ",")) }
          body.append(contentsOf: #"{"changes":"#.utf8)
          body.append(contentsOf: text.utf8)
          let tail = #","position":\#(position),"replica":"\#(replica)","sequence":"#
          body.append(contentsOf: (tail + "\(sequence)}").utf8)
          saves += 1
          cursor = position
          changes += occurrences(of: #""incarnation":"#, in: text)
          if changes >= SyncPullResponse.maximumChanges { break batches }
        }
        if rows.count < batch { break }
      }
      body.append(contentsOf: "]}".utf8)
      return SyncHTTPResponse(status: 200, body: body)
    }

    private static func occurrences(of pattern: String, in text: String) -> Int {
      let needle = Array(pattern.utf8)
      var count = 0
      var matched = 0
      for byte in text.utf8 {
        if byte == needle[matched] {
          matched += 1
          if matched == needle.count {
            count += 1
            matched = 0
          }
        } else {
          matched = byte == needle[0] ? 1 : 0
        }
      }
      return count
    }
  }
#endif
