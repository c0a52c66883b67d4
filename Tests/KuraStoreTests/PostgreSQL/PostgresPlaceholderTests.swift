import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

extension PostgreSQLTests {
  @Suite("PostgreSQL placeholders")
  struct PostgresPlaceholderTests {
    func rewrite(_ sql: String) -> PostgresPlaceholders.Rewritten {
      PostgresPlaceholders.rewrite(sql)
    }

    @Test func questionMarksAreNumberedInOrder() {
      #expect(
        rewrite("INSERT INTO t (a, b, c) VALUES (?, ?, ?)")
          == .init(sql: "INSERT INTO t (a, b, c) VALUES ($1, $2, $3)", parameterCount: 3))
    }

    @Test func numberedPlaceholdersKeepTheirNumbersAndABareOneFollowsTheLargest() {
      // As in SQLite: a bare `?` takes the number after the largest used so far.
      #expect(
        rewrite("SELECT ?2, ?1, ?, ?5, ?")
          == .init(sql: "SELECT $2, $1, $3, $5, $6", parameterCount: 6))
      #expect(
        rewrite("UPDATE t SET a = ?1 WHERE b = ?1 OR c = ?10")
          == .init(sql: "UPDATE t SET a = $1 WHERE b = $1 OR c = $10", parameterCount: 10))
    }

    @Test func stringLiteralsAndIdentifiersAreLeftAlone() {
      #expect(
        rewrite("SELECT '?', 'it''s ?', \"col?\", \"a\"\"?\" FROM t WHERE x = ?")
          == .init(
            sql: "SELECT '?', 'it''s ?', \"col?\", \"a\"\"?\" FROM t WHERE x = $1",
            parameterCount: 1))
      // E'…' strings end at an unescaped quote; \' does not end them.
      #expect(
        rewrite("SELECT E'a\\'?', e'\\\\', ? , name'?'")
          == .init(sql: "SELECT E'a\\'?', e'\\\\', $1 , name'?'", parameterCount: 1))
    }

    /// A quoted identifier longer than the 63 bytes PostgreSQL keeps is sent as its first bytes
    /// (cut at a character's start), `_` and 16 hexadecimal digits of the FNV-1a hash of the
    /// whole name — these exact names, which stores made by every version depend on. A string
    /// literal holding the same text, a 63-byte name and, without parameters, `?` stay.
    @Test func identifiersLongerThan63BytesAreFitted() {
      let quoted =
        "a \"\"quoted\"\" name that is longer than the sixty-three bytes PostgreSQL keeps"
      let accented = "a" + String(repeating: "\u{E9}", count: 40)
      let kept = String(repeating: "k", count: 63)
      #expect(
        rewrite("SELECT \"\(quoted)\", '\(accented)' FROM \"\(accented)\", \"\(kept)\" WHERE x = ?")
          == .init(
            sql:
              "SELECT \"a \"\"quoted\"\" name that is longer than the sixty-_86421d6aa5a96dda\", "
              + "'\(accented)' FROM \"a\(String(repeating: "\u{E9}", count: 22))_e3b75dbd7646b30c\", "
              + "\"\(kept)\" WHERE x = $1",
            parameterCount: 1))
      #expect(
        PostgresPlaceholders.fittingIdentifiers("CREATE TABLE \"\(accented)\" (a text DEFAULT '?')")
          == "CREATE TABLE \"a\(String(repeating: "\u{E9}", count: 22))_e3b75dbd7646b30c\" "
          + "(a text DEFAULT '?')")
      #expect(PostgresIdentifier.fitted(kept) == kept)
      #expect(PostgresIdentifier.mayBeFitted("t_e3b75dbd7646b30c"))
      #expect(!PostgresIdentifier.mayBeFitted("t_e3b75dbd7646b30g"))
      #expect(!PostgresIdentifier.mayBeFitted("te3b75dbd7646b30c0"))
    }

    @Test func commentsAreLeftAlone() {
      #expect(
        rewrite("SELECT ? -- is it?\n, ? /* what? /* nested? */ still? */ , ?")
          == .init(
            sql: "SELECT $1 -- is it?\n, $2 /* what? /* nested? */ still? */ , $3",
            parameterCount: 3))
      #expect(rewrite("SELECT 1 -- ?") == .init(sql: "SELECT 1 -- ?", parameterCount: 0))
    }

    @Test func dollarQuotedBodiesAreLeftAlone() {
      let function = """
        CREATE FUNCTION f() RETURNS text AS $$ SELECT '?' || $1 $$ LANGUAGE sql;
        DO $body$ BEGIN PERFORM ?; END $body$; SELECT ?, a$b, $1
        """
      #expect(
        rewrite(function)
          == .init(
            sql: """
              CREATE FUNCTION f() RETURNS text AS $$ SELECT '?' || $1 $$ LANGUAGE sql;
              DO $body$ BEGIN PERFORM ?; END $body$; SELECT $1, a$b, $1
              """, parameterCount: 1))
    }

    @Test func sqlWithoutPlaceholdersIsUnchanged() {
      let sql = "CREATE TABLE \"é?\" (a bigint, b text DEFAULT '漢字?')"
      #expect(rewrite(sql) == .init(sql: sql, parameterCount: 0))
      #expect(rewrite("") == .init(sql: "", parameterCount: 0))
    }

    @Test func nonASCIITextAroundPlaceholdersIsKept() {
      #expect(
        rewrite("SELECT '日本?' || ? || \"名前\" FROM 表 WHERE 名前 = ?")
          == .init(sql: "SELECT '日本?' || $1 || \"名前\" FROM 表 WHERE 名前 = $2", parameterCount: 2))
    }

    @Test func unterminatedQuotesAndCommentsRunToTheEnd() {
      #expect(rewrite("SELECT ?, 'open ?") == .init(sql: "SELECT $1, 'open ?", parameterCount: 1))
      #expect(rewrite("SELECT ? /* open ?") == .init(sql: "SELECT $1 /* open ?", parameterCount: 1))
      #expect(
        rewrite("SELECT ?, $$ open ?") == .init(sql: "SELECT $1, $$ open ?", parameterCount: 1))
    }
  }
}
