import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  extension PostgresConnection {
    /// Commits a transaction opened with `BEGIN` through ``execute(_:)``, sending in one simple
    /// query (one round trip) `statementsBeforeCommit` statements that run in the transaction
    /// (such as the write of its commit marker), `COMMIT`, and what follows it (SQL without
    /// parameters, such as a transaction of its own, which the server skips when the COMMIT
    /// fails).
    ///
    /// A statement before the commit that fails ends the query there (the server skips the
    /// rest): the transaction is rolled back and that failure thrown. A connection lost at any
    /// point of the round trip is ``PostgresError/Code/connectionLost`` with
    /// ``PostgresError/isCommitOutcomeUnknown`` (the `COMMIT` may have run). The commit's other
    /// errors are ``commitOpenTransaction()``'s. Returns whether what follows the commit ran
    /// without an error: after a commit, its failure is not the commit's.
    package func commitOpenTransaction(sending text: PostgresQueryText, statementsBeforeCommit: Int)
      throws -> Bool
    {
      let handle = try session.liveHandle(sql: "COMMIT")
      let sent = text.withCString { PQsendQuery(handle, $0) } != 0
      var failure: PostgresError?
      var index = 0
      var followedUp = true
      var sawCommit = false
      while sent, let result = PQgetResult(handle) {
        defer {
          PQclear(result)
          index += 1
        }
        if failure != nil { continue }
        if index < statementsBeforeCommit {
          let status = PQresultStatus(result)
          if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK {
            failure = session.error(result, sql: text.sql, committing: true)
          }
        } else if index == statementsBeforeCommit {
          sawCommit = true
          failure = commitFailure(result)
        } else {
          let status = PQresultStatus(result)
          if status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK { followedUp = false }
        }
      }
      if failure == nil, !sawCommit { failure = commitFailure(nil) }
      if let failure {
        if isInTransaction { rollBackTransaction() }
        throw failure
      }
      return followedUp
    }
  }
#endif
