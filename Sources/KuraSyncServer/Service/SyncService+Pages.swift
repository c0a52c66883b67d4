import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation

  extension SyncService {
    /// The query arguments the endpoints read (the transport hands over these only).
    package static let queryArguments = [
      "after", "limit", "replica", "settled", "model", "id", "wait",
    ]

    /// The longest a pull waits for a push (`wait` is cut to it): under libmicrohttpd's
    /// 30-second idle timeout and a client's usual request timeout.
    package static let maximumWait: Duration = .seconds(25)

    /// A pull: the page after `after`; with `wait=<seconds>` (a server that can wait says so
    /// with `"longPoll":true` in every page), an empty page carries the wait the transport parks
    /// until the space's next push (see ``SyncChangeSignal``), then asks again without it.
    package func pull(
      _ query: [String: String], space: String, credential: String,
      _ connection: PostgresConnection
    ) throws -> SyncHTTPResponse {
      guard let after = Int64(query["after"] ?? "0"), after >= 0 else {
        throw Self.thrown(400, "badRequest", "`after` is a log position: 0 or more.")
      }
      guard let limit = Int(query["limit"] ?? "\(Self.maximumSaves)"),
        (1...Self.maximumSaves).contains(limit)
      else {
        throw Self.thrown(400, "badRequest", "`limit` is 1 to \(Self.maximumSaves).")
      }
      guard let wait = Int(query["wait"] ?? "0"), wait >= 0 else {
        throw Self.thrown(
          400, "badRequest", "`wait` is how many seconds a pull may wait for a push: 0 or more.")
      }
      // Before the log is read: a push committing after the read moves the mark.
      let mark = changeSignal.mark(space)
      // The replica's bookkeeping first, read committed: a write in the repeatable-read
      // transaction would fail to serialize against pushes updating the space's row.
      _ = try connection.transaction {
        try notePull(query, after: after, space: space, credential: credential, connection)
      }
      var (response, due) = try connection.transaction(.repeatableRead) {
        let head =
          try connection.queryFirst(
            "SELECT head FROM kura_sync_spaces WHERE space = ?", [.text(space)]
          ) { $0.int64(at: 0) } ?? 0
        let compacted = try requireKept(after: after, space: space, connection)
        return (
          try Self.page(space: space, after: after, limit: limit, head: head, connection),
          head - compacted >= Self.compactionBatch
        )
      }
      if due { compactInBackground(space: space) }
      if wait > 0, Self.isEmptyPage(response.body) {
        guard changeSignal.isListening else {
          throw Self.thrown(
            503, "busy",
            "This server can't hold a pull until the next push now (it isn't listening to "
              + "its database's notices): ask again without `wait` (poll).")
        }
        let seconds = min(Duration.seconds(wait), Self.maximumWait)
        response.wait = SyncPullWait(
          space: space, mark: mark, deadline: ContinuousClock.now + seconds)
      }
      return response
    }

    /// Whether a page ``page(space:after:limit:head:_:)`` made has no saves (it ends `[]}`).
    private static func isEmptyPage(_ body: Data) -> Bool {
      body.count >= 3 && body[body.endIndex - 3] == UInt8(ascii: "[")
    }

    /// A pull's answer: the logged saves after `after` (at most `limit`), ending at the save
    /// that brings the page to ``SyncPullResponse/maximumChanges`` changes (the first save is
    /// always sent, however large).
    ///
    /// The page starts `{"head":H,"last":P,` (`last`: the last save's position, left out of an
    /// empty page), the members a replica staging it needs.
    ///
    /// The log keeps each save's changes as the JSON the push was answered with (written by
    /// this server, keys sorted), so the page splices that text into the answer instead of
    /// decoding and encoding it again; the changes are counted by their `"incarnation":`
    /// member, which each change has once and which can't occur inside a JSON string.
    package static func page(
      space: String, after: Int64, limit: Int, head: Int64, _ connection: PostgresConnection
    ) throws -> SyncHTTPResponse {
      var page = SyncPageWriter()
      var changes = 0
      var cursor = after
      batches: while page.saves < limit {
        let batch = min(64, limit - page.saves)
        let rows = try connection.query(
          "SELECT position, replica, sequence, changes FROM kura_sync_log "
            + "WHERE space = ? AND position > ? ORDER BY position LIMIT ?",
          [.text(space), .integer(cursor), .integer(Int64(batch))]
        ) { ($0.int64(at: 0), $0.string(at: 1), $0.int64(at: 2), $0.string(at: 3)) }
        for (position, replica, sequence, text) in rows {
          page.append(changes: text, position: position, replica: replica, sequence: sequence)
          cursor = position
          changes += occurrences(of: #""incarnation":"#, in: text)
          if changes >= SyncPullResponse.maximumChanges { break batches }
        }
        if rows.count < batch { break }
      }
      return SyncHTTPResponse(status: 200, body: page.page(head: head))
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
