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

      /// A UUID goes as its 16 bytes to a `uuid` parameter and as its text to a text one, and
      /// reads back the same either way.
      @Test func aUUIDBindsAsBytesOrText() throws {
        let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())
        let id = try #require(UUID(uuidString: "0123ABCD-4567-89EF-FEDC-BA9876543210"))
        let asUUID = try connection.prepare("SELECT CAST(? AS uuid)::text")
        try asUUID.bind(uuid: id, at: 1)
        #expect(try asUUID.step())
        #expect(asUUID.string(at: 0) == "0123abcd-4567-89ef-fedc-ba9876543210")
        let asText = try connection.prepare("SELECT CAST(? AS text)")
        try asText.bind(uuid: id, at: 1)
        #expect(try asText.step())
        #expect(asText.string(at: 0) == "0123ABCD-4567-89EF-FEDC-BA9876543210")
      }

      /// A begin's transaction id is read from the server's decimal text: digits with an
      /// optional sign; anything else (empty, a space, a fraction, too many digits) is none.
      @Test func aBeginsTransactionIDIsReadOnlyFromDecimalText() {
        func read(_ text: String) -> Int64? {
          text.withCString { PostgresSession.decimalInteger($0) }
        }
        #expect(read("0") == 0)
        #expect(read("1234567") == 1_234_567)
        #expect(read("-42") == -42)
        #expect(read("999999999999999999") == 999_999_999_999_999_999)
        for bad in ["", "-", "12 34", "1.5", "x1", "1234567890123456789"] {
          #expect(read(bad) == nil, "\(bad)")
        }
      }
    }
  }
#endif
