import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  /// An HTTP request as the sync server's transport hands it over.
  package struct SyncHTTPRequest: Sendable {
    package var method: String
    /// The path without the query, such as `/v1/spaces/family/changes`.
    package var path: String
    /// The query's arguments.
    package var query: [String: String]
    /// The `Authorization` header, if any.
    package var authorization: String?
    /// The body (empty when it was too large: see `bodyTooLarge`).
    package var body: Data
    /// Whether the body was longer than ``SyncService/maximumBodyBytes`` (it was not kept).
    package var bodyTooLarge: Bool

    package init(
      method: String, path: String, query: [String: String], authorization: String?,
      body: Data, bodyTooLarge: Bool
    ) {
      self.method = method
      self.path = path
      self.query = query
      self.authorization = authorization
      self.body = body
      self.bodyTooLarge = bodyTooLarge
    }
  }

  /// The answer to a ``SyncHTTPRequest``: a status and a JSON body.
  package struct SyncHTTPResponse: Sendable {
    package var status: Int
    package var body: Data
    /// For an empty page of a pull that asked to wait: the wait the transport may park.
    package var wait: SyncPullWait? = nil
  }

  /// The sync server's logic: authenticates a request's token, then pushes saves into or pulls
  /// them from the space's log in PostgreSQL. It keeps no state but PostgreSQL's (and a cache
  /// of the tokens file), so several servers can serve one database.
  ///
  /// Pushes to one space are serialized by a row lock on the space, taken before a position is
  /// given out, so positions commit in order and a pull's cursor (the last position it read)
  /// never skips a save that commits late.
  // Safety: the mutable state (idle connections, the tokens cache) is behind Mutexes; a
  // PostgresConnection is used by one request at a time (checked out of `idle`).
  package final class SyncService: Sendable {
    /// The largest request body read; a longer one is answered 413.
    package static let maximumBodyBytes = 4 << 20
    /// The most saves one push may carry, and the most one pull returns.
    package static let maximumSaves = 1_000
    /// How far ahead of the server's clock a stamp may be.
    package static let maximumDrift: UInt64 = 5 * 60 * 1000

    private let location: PostgresLocation
    package let tokensFile: URL
    private let idle = Mutex<[PostgresConnection]>([])
    /// The tokens file as last read: what identified its version, and its tokens (`nil`: it
    /// can't be read or parsed, and every token is refused until it is fixed).
    package let tokens: Mutex<(version: SyncTokensFileVersion?, tokens: SyncTokens?)>
    private let wallClock: @Sendable () -> UInt64
    /// How long a replica may go unseen before compaction retires it.
    package let retireAfter: Duration
    /// The spaces this process is compacting now.
    package let compacting = Mutex<Set<String>>([])
    /// Wakes the pulls waiting for a space's pushes (see ``SyncChangeSignal``).
    package let changeSignal: SyncChangeSignal

    /// Connects to the database, creates the sync tables when they are missing and reads the
    /// tokens file.
    ///
    /// - Throws: `PostgresError` when the database can't be reached; ``SyncTokensError``
    ///   for a tokens file that can't be read.
    package init(
      store location: PostgresLocation, tokens tokensFile: URL,
      wallClock: @escaping @Sendable () -> UInt64 = HybridLogicalClock.systemWallClock,
      retireAfter: Duration = SyncService.defaultRetirement
    ) throws {
      self.retireAfter = retireAfter
      self.location = location
      self.tokensFile = tokensFile
      self.wallClock = wallClock
      changeSignal = SyncChangeSignal(location: location)
      let version = SyncTokensFileVersion(of: tokensFile)
      tokens = Mutex((version, try Self.readTokens(tokensFile)))
      let connection = try PostgresConnection(location: location)
      try connection.transaction {
        // Two servers starting at once: one creates the tables, the other waits and sees them.
        try connection.execute("SELECT pg_advisory_xact_lock(7240024)")
        try connection.execute(Self.schemaSQL)
        try connection.execute(Self.uniqueSchemaSQL)
        try connection.execute(Self.compactionSchemaSQL)
        try connection.execute(Self.credentialSchemaSQL)
        try Self.upgradeCatalog(connection)
      }
      idle.withLock { $0.append(connection) }
    }

    private static let schemaSQL = """
      CREATE TABLE IF NOT EXISTS kura_sync_spaces (
        space text COLLATE "C" PRIMARY KEY,
        head bigint NOT NULL DEFAULT 0);
      CREATE TABLE IF NOT EXISTS kura_sync_replicas (
        replica text COLLATE "C" PRIMARY KEY,
        space text COLLATE "C" NOT NULL,
        acknowledged bigint NOT NULL DEFAULT 0);
      CREATE TABLE IF NOT EXISTS kura_sync_log (
        space text COLLATE "C" NOT NULL,
        position bigint NOT NULL,
        replica text COLLATE "C" NOT NULL,
        sequence bigint NOT NULL,
        changes text NOT NULL,
        committed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (space, position),
        UNIQUE (space, replica, sequence))
      """

    // MARK: Requests

    /// Answers one request; never throws and never crashes on what a client sends.
    package func handle(_ request: SyncHTTPRequest) -> SyncHTTPResponse {
      let grant: SyncTokens.Grant
      let space: String
      let endpoint: String
      switch admit(
        method: request.method, path: request.path, authorization: request.authorization,
        declaredLength: nil)
      {
      case .failure(let thrown): return thrown.response
      case .success(let admitted): (grant, space, endpoint) = admitted
      }
      if request.bodyTooLarge {
        return Self.error(
          413, "tooLarge",
          "The request body is over \(Self.maximumBodyBytes) bytes: push fewer saves at a time.")
      }
      do {
        return try withConnection { connection in
          switch endpoint {
          case "push":
            try push(request.body, space: space, credential: grant.credential, connection)
          case "changes":
            try pull(request.query, space: space, credential: grant.credential, connection)
          default:
            try snapshot(request.query, space: space, credential: grant.credential, connection)
          }
        }
      } catch let response as SyncHTTPResponse.Thrown {
        return response.response
      } catch {
        return Self.unexpected(error)
      }
    }

    /// Checks a request's head before its body is read: the endpoint, the method, the token
    /// and (when declared) the body's length.
    ///
    /// - Returns: The refusal (404, 405, 401, 403, 413), or `nil` to read the body.
    package func check(
      method: String, path: String, authorization: String?, declaredLength: Int?
    ) -> SyncHTTPResponse? {
      switch admit(
        method: method, path: path, authorization: authorization, declaredLength: declaredLength)
      {
      case .failure(let thrown): return thrown.response
      case .success: return nil
      }
    }

    /// The grant, space and endpoint of a request, or the answer that refuses it.
    private func admit(
      method requestMethod: String, path: String, authorization: String?, declaredLength: Int?
    ) -> Result<(SyncTokens.Grant, String, String), SyncHTTPResponse.Thrown> {
      let parts = path.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "spaces",
        parts[4] == "push" || parts[4] == "changes" || parts[4] == "snapshot"
      else {
        return .failure(
          Self.thrown(
            404, "notFound",
            "No such endpoint: `\(path.prefix(200))`. The endpoints are "
              + "POST /v1/spaces/{space}/push, GET /v1/spaces/{space}/changes and "
              + "GET /v1/spaces/{space}/snapshot."))
      }
      let space = String(parts[3])
      let endpoint = String(parts[4])
      let method = endpoint == "push" ? "POST" : "GET"
      guard requestMethod == method else {
        return .failure(
          Self.thrown(
            405, "methodNotAllowed", "`/v1/spaces/{space}/\(endpoint)` takes \(method) only."))
      }
      switch authorize(authorization, space: space) {
      case .failure(let thrown): return .failure(thrown)
      case .success(let grant):
        if let declaredLength, declaredLength > Self.maximumBodyBytes {
          return .failure(
            Self.thrown(
              413, "tooLarge",
              "The request body is over \(Self.maximumBodyBytes) bytes: push fewer saves at a "
                + "time."))
        }
        return .success((grant, space, endpoint))
      }
    }

    private func authorize(_ authorization: String?, space: String) -> Result<
      SyncTokens.Grant, SyncHTTPResponse.Thrown
    > {
      guard let header = authorization, header.hasPrefix("Bearer "),
        header.utf8.count > 7
      else {
        return .failure(
          .init(
            Self.error(
              401, "unauthorized",
              "The request has no `Authorization: Bearer <token>` header: send the token "
                + "that grants this space.")))
      }
      let token = String(header.dropFirst(7))
      guard let tokens = currentTokens() else {
        return .failure(
          .init(
            Self.error(
              401, "unauthorized",
              "The server's tokens file can't be read or has an error, so it refuses every "
                + "token until it is fixed (its log says why): try again later.")))
      }
      guard let grant = tokens.grant(forHash: SHA256.hexDigest(token)) else {
        return .failure(
          .init(
            Self.error(
              401, "unauthorized",
              "The token is not known to this server (or was revoked): ask for a new token.")))
      }
      if let expires = grant.expires, expires <= Date() {
        return .failure(
          .init(
            Self.error(
              401, "unauthorized",
              "The token expired at \(ISO8601DateFormatter().string(from: expires)): ask for a "
                + "new token.")))
      }
      // Bytes, not Swift's Unicode-equivalent `==` (PostgreSQL compares bytes: a KELVIN SIGN
      // is not a K there).
      guard grant.space.utf8.elementsEqual(space.utf8) else {
        return .failure(
          .init(
            Self.error(
              403, "forbidden",
              "The token does not grant space `\(space.prefix(100))`: use this space's token.")))
      }
      return .success(grant)
    }

    private func push(
      _ body: Data, space: String, credential: String, _ connection: PostgresConnection
    ) throws -> SyncHTTPResponse {
      let request: SyncPushRequest
      do {
        request = try JSONDecoder().decode(SyncPushRequest.self, from: body)
      } catch {
        throw Self.thrown(
          400, "badRequest",
          "The push body is not a push: \(Self.describe(error)). It is JSON "
            + #"{"replica": "<32 hex digits>", "saves": [{"sequence": 1, "changes": […]}]}."#)
      }
      guard let replica = SyncStamp.uuid(hex: request.replica) else {
        throw Self.thrown(
          400, "badRequest", "The push's `replica` is not 32 lowercase hex digits.")
      }
      guard !request.saves.isEmpty, request.saves.count <= Self.maximumSaves else {
        throw Self.thrown(
          400, "badRequest", "A push carries 1 to \(Self.maximumSaves) saves.")
      }
      let now = wallClock()
      for (offset, save) in request.saves.enumerated() {
        guard save.sequence == request.saves[0].sequence + Int64(offset), save.sequence >= 1
        else {
          throw Self.thrown(
            400, "badRequest",
            "The push's sequence numbers are not consecutive from 1 or more: save "
              + "\(offset + 1) has \(save.sequence).")
        }
        for change in save.changes {
          guard change.stamp.replica == replica else {
            throw Self.thrown(
              400, "badRequest",
              "Save \(save.sequence) has a change stamped by another replica: a replica "
                + "pushes only its own changes.")
          }
          if change.stamp.wall > now + Self.maximumDrift {
            throw Self.thrown(
              422, "clockAhead",
              "Save \(save.sequence) is stamped \((change.stamp.wall - now) / 1000) s ahead of "
                + "the server's clock (at most \(Self.maximumDrift / 1000) s): set this "
                + "device's clock right. Nothing was applied.")
          }
        }
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      return try connection.transaction {
        try connection.run(
          "INSERT INTO kura_sync_spaces (space) VALUES (?) ON CONFLICT DO NOTHING", [.text(space)])
        // The lock that serializes this space's pushes (see the type's comment).
        var head =
          try connection.queryFirst(
            "SELECT head FROM kura_sync_spaces WHERE space = ? FOR UPDATE", [.text(space)]
          ) { $0.int64(at: 0) } ?? 0
        let registered = try connection.queryFirst(
          "SELECT space, acknowledged FROM kura_sync_replicas WHERE replica = ? FOR UPDATE",
          [.text(request.replica)]
        ) { ($0.string(at: 0), $0.int64(at: 1)) }
        try requireOwned(replica: request.replica, credential: credential, connection)
        try requireCurrent(replica: request.replica, space: space, connection)
        var acknowledged: Int64 = 0
        if let registered {
          guard registered.0 == space else {
            throw Self.thrown(
              409, "replicaConflict",
              "Replica `\(request.replica)` syncs another space: a replica belongs to one "
                + "space; use a new store (a new replica) for this one.")
          }
          acknowledged = registered.1
        } else {
          try connection.run(
            "INSERT INTO kura_sync_replicas (replica, space, credential) VALUES (?, ?, ?)",
            [.text(request.replica), .text(space), .text(credential)])
        }
        let catalog = try learnCatalog(request.schema, space: space, connection)
        var conflicts: [SyncUniqueConflict] = []
        for save in request.saves {
          let changes = String(decoding: try encoder.encode(save.changes), as: UTF8.self)
          if save.sequence <= acknowledged {
            // A resend (its answer was lost): applied before, so not again — if it is the same.
            let stored = try storedSave(
              save.sequence, replica: request.replica, space: space, connection)
            conflicts += stored.conflicts
            guard stored.changes == changes else {
              throw Self.thrown(
                409, "replicaConflict",
                "Save \(save.sequence) of replica `\(request.replica)` was pushed before with "
                  + "other changes: two stores share one replica id (a copied store file?).")
            }
            continue
          }
          guard save.sequence == acknowledged + 1 else {
            throw Self.thrown(
              409, "gap",
              "Save \(save.sequence) follows \(acknowledged): push save \(acknowledged + 1) "
                + "first.", expected: acknowledged + 1)
          }
          acknowledged = save.sequence
          let outcome = try arbitrate(
            try admit(save, catalog: catalog, space: space, connection), space: space, connection)
          conflicts += outcome.conflicts
          try recordOutcome(
            save, changes, outcome.conflicts, replica: request.replica, space: space, connection)
          // A withdrawn save (no changes, see SyncEngine+Push) takes its number, no position.
          guard !save.changes.isEmpty else { continue }
          head += 1
          try connection.run(
            "INSERT INTO kura_sync_log (space, position, replica, sequence, changes) "
              + "VALUES (?, ?, ?, ?, ?)",
            [
              .text(space), .integer(head), .text(request.replica), .integer(save.sequence),
              .text(
                outcome.conflicts.isEmpty
                  ? changes : String(decoding: try encoder.encode(outcome.published), as: UTF8.self)
              ),
            ])
        }
        try connection.run(
          "UPDATE kura_sync_spaces SET head = ? WHERE space = ?", [.integer(head), .text(space)])
        try connection.notify(SyncChangeSignal.channel, payload: SyncChangeSignal.key(space))
        try connection.run(
          "UPDATE kura_sync_replicas SET acknowledged = ? WHERE replica = ?",
          [.integer(acknowledged), .text(request.replica)])
        return Self.json(
          200,
          SyncPushResponse(
            acknowledged: acknowledged, head: head, conflicts: conflicts.isEmpty ? nil : conflicts))
      }
    }

    // MARK: Plumbing

    package func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws
      -> Result
    {
      let connection = try idle.withLock { $0.popLast() } ?? PostgresConnection(location: location)
      do {
        let result = try body(connection)
        idle.withLock { $0.append(connection) }
        return result
      } catch let thrown as SyncHTTPResponse.Thrown {
        idle.withLock { $0.append(connection) }
        throw thrown
      } catch {
        // A connection that broke is dropped (the next request opens a new one); one that
        // only refused a statement (its transaction rolled back) is kept.
        if connection.isAlive, !connection.isInTransaction {
          idle.withLock { $0.append(connection) }
        }
        throw error
      }
    }

    package static func json<Body: Encodable>(_ status: Int, _ body: Body) -> SyncHTTPResponse {
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
      return SyncHTTPResponse(status: status, body: data)
    }

    package static func error(
      _ status: Int, _ code: String, _ message: String, expected: Int64? = nil
    )
      -> SyncHTTPResponse
    {
      json(status, SyncErrorResponse(error: code, message: message, expected: expected))
    }

    package static func thrown(
      _ status: Int, _ code: String, _ message: String, expected: Int64? = nil
    ) -> SyncHTTPResponse.Thrown {
      .init(error(status, code, message, expected: expected))
    }

    /// A decoding error in a few words (where, and what was expected), without echoing input.
    private static func describe(_ error: any Error) -> String {
      guard let error = error as? DecodingError else { return "it is not valid JSON" }
      switch error {
      case .dataCorrupted(let context), .typeMismatch(_, let context),
        .valueNotFound(_, let context):
        let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
        return path.isEmpty
          ? "it is not valid JSON"
          : "`\(path.joined(separator: "."))` is wrong (\(context.debugDescription.prefix(120)))"
      case .keyNotFound(let key, let context):
        let path = (context.codingPath + [key]).map {
          $0.intValue.map(String.init) ?? $0.stringValue
        }
        return "`\(path.joined(separator: "."))` is missing"
      @unknown default:
        return "it is not valid JSON"
      }
    }
  }

  extension SyncHTTPResponse {
    /// A response thrown out of a transaction (which rolls it back).
    package struct Thrown: Error {
      package var response: SyncHTTPResponse
      package init(_ response: SyncHTTPResponse) { self.response = response }
    }
  }
#endif
