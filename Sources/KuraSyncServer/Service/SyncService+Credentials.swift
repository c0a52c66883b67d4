import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation

  #if canImport(Glibc)
    import Glibc
  #endif

  extension SyncService {
    /// The credential a replica is bound to: the first that registered it (by a push, a pull
    /// or a snapshot read) — see ``SyncTokens/Grant/credential``. A replica registered before
    /// there were credentials is bound to the next one that uses it.
    package static let credentialSchemaSQL = """
      ALTER TABLE kura_sync_replicas ADD COLUMN IF NOT EXISTS credential text COLLATE "C"
      """

    /// Refuses (403) a request that acts as `replica` with another credential than the one it
    /// is bound to, and binds a replica bound to none (registered by an older server).
    package func requireOwned(replica: String, credential: String, _ connection: PostgresConnection)
      throws
    {
      let owner = try connection.queryFirst(
        "UPDATE kura_sync_replicas SET credential = COALESCE(credential, ?) WHERE replica = ? "
          + "RETURNING credential",
        [.text(credential), .text(replica)]
      ) { $0.string(at: 0) }
      guard let owner, !owner.utf8.elementsEqual(credential.utf8) else { return }
      throw Self.thrown(
        403, "replicaNotYours",
        "Replica `\(replica)` belongs to another device's token: a replica pushes and pulls "
          + "with the token it first used. Use this device's own replica (its own store).")
    }

    /// The tokens now: read again when the file changed (its inode, size or modification time);
    /// `nil` when it can't be read or parsed — every token is then refused until it is fixed,
    /// and the reason is logged once per version of the file.
    package func currentTokens() -> SyncTokens? {
      let version = SyncTokensFileVersion(of: tokensFile)
      return tokens.withLock { cached in
        guard version != cached.version || version == nil else { return cached.tokens }
        if version == nil, cached.version == nil, cached.tokens == nil { return nil }
        cached.version = version
        do {
          cached.tokens = try Self.readTokens(tokensFile)
        } catch {
          cached.tokens = nil
          FileHandle.standardError.write(
            Data(
              ("\(error) Every token is refused until the file is fixed.\n").utf8))
        }
        return cached.tokens
      }
    }

    /// Reads the tokens file.
    ///
    /// - Throws: ``SyncTokensError`` naming the file and why.
    package static func readTokens(_ file: URL) throws -> SyncTokens {
      let text: String
      do {
        text = try String(contentsOf: file, encoding: .utf8)
      } catch {
        throw SyncTokensError(
          message:
            "Can't read tokens file `\(file.path)`: \(error.localizedDescription). Give the "
            + "path of a readable text file with one `<space> <token hash>` line per token.")
      }
      return try SyncTokens(text: text, file: file.path)
    }

    /// The answer to an error that is not a client's: 503 when PostgreSQL can't be reached
    /// (the client tries again), 400 for a value PostgreSQL refuses (a data exception, a value
    /// over one of its limits), otherwise 500. The error goes to the server's log.
    package static func unexpected(_ error: any Error) -> SyncHTTPResponse {
      FileHandle.standardError.write(Data("Sync request failed: \(error)\n".utf8))
      guard let error = error as? PostgresError else {
        return Self.error(
          500, "internal",
          "The sync server failed on this request; nothing was changed. Its log says why.")
      }
      switch error.code {
      case .connectionFailed, .connectionLost, .authenticationFailed, .databaseMissing:
        return Self.error(
          503, "unavailable",
          "The sync server can't reach its database right now; nothing was changed. Try again.")
      default:
        if let state = error.sqlState, state.hasPrefix("22") || state.hasPrefix("54") {
          return Self.error(
            400, "badRequest",
            "The database refused a value of this request (SQLSTATE \(state): "
              + "\(error.code)); nothing was changed. Send values it can store.")
        }
        return Self.error(
          500, "internal",
          "The sync server failed on this request (SQLSTATE \(error.sqlState ?? "none")); "
            + "nothing was changed. Its log says why.")
      }
    }
  }

  /// What identifies one version of the tokens file: its inode, size and modification time
  /// (to the nanosecond), so an edit is seen even within the same second.
  package struct SyncTokensFileVersion: Sendable, Hashable {
    package var inode: UInt64
    package var size: Int64
    package var seconds: Int
    package var nanoseconds: Int

    /// The file's version now, or `nil` when it can't be examined (such as deleted).
    package init?(of file: URL) {
      var status = stat()
      guard stat(file.path, &status) == 0 else { return nil }
      inode = UInt64(status.st_ino)
      size = Int64(status.st_size)
      seconds = Int(status.st_mtim.tv_sec)
      nanoseconds = Int(status.st_mtim.tv_nsec)
    }
  }
#endif
