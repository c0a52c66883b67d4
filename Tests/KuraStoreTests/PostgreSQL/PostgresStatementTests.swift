#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  extension PostgreSQLTests {
    @Suite("PostgreSQL statement")
    struct PostgresStatementTests {
      /// A statement kept after its connection went: running it throws (naming the fix), it
      /// doesn't stop the process.
      @Test func aStatementThatOutlivesItsConnectionThrows() throws {
        var connection: PostgresConnection? = try PostgresConnection(
          PostgresCluster.freshDatabaseURL())
        let statement = try #require(try connection?.prepare("SELECT ?::bigint + 1"))
        try statement.bind(41, at: 1)
        #expect(try statement.step())
        #expect(statement.int64(at: 0) == 42)
        statement.rewind()
        connection = nil
        do {
          try statement.step()
          Issue.record("a statement ran after its connection closed")
        } catch let error as PostgresError {
          #expect(error.code == .other)
          #expect(error.sql == "SELECT ?::bigint + 1")
          #expect(
            error.message
              == "the statement was used after its connection closed (nothing was sent); prepare"
              + " statements on a connection that is still open, and keep the connection while"
              + " they are used")
        }
      }
    }
  }
#endif
