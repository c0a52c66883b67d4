#if canImport(CLibPQ)
  import Foundation
  import KuraCLI
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraStoreCLI

  extension PostgreSQLTests {
    @Suite("PostgreSQL location")
    struct PostgresLocationTests {
      @Test func readsAURL() throws {
        let location = try PostgresLocation(
          "postgresql://alice@db.example.com:6543/app?sslmode=disable&connect_timeout=5")
        #expect(location.host == "db.example.com")
        #expect(location.port == 6543)
        #expect(location.database == "app")
        #expect(location.user == "alice")
        #expect(location.parameters["sslmode"] == "disable")
        #expect(location.parameters["connect_timeout"] == "5")
        #expect(location.description == "database `app` on `db.example.com:6543` as user `alice`")
        #expect(try PostgresLocation("postgres://db/app").database == "app")
      }

      @Test func readsASocketFolderFromTheURLsQuery() throws {
        let location = try PostgresLocation("postgresql:///app?host=/tmp/kura%20pg&user=bob")
        #expect(location.host == "/tmp/kura pg")
        #expect(
          location.description
            == "database `app` on socket `/tmp/kura pg/.s.PGSQL.5432` as user `bob`"
        )
      }

      @Test func readsAKeywordValueConnectionString() throws {
        let location = try PostgresLocation(
          "host=/var/run/postgresql port=5433 dbname='my app' user=carol")
        #expect(location.host == "/var/run/postgresql")
        #expect(location.port == 5433)
        #expect(location.database == "my app")
        #expect(
          location.description
            == "database `my app` on socket `/var/run/postgresql/.s.PGSQL.5433` as user `carol`")
      }

      @Test func readsAFoundationURL() throws {
        let url = try #require(URL(string: "postgresql://db.example.com/app"))
        #expect(try PostgresLocation(url: url).database == "app")
        let web = try #require(URL(string: "https://db.example.com/app"))
        #expect(throws: PostgresError.self) { try PostgresLocation(url: web) }
        do {
          _ = try PostgresLocation(url: web)
        } catch let error as PostgresError {
          #expect(error.code == .invalidLocation)
          #expect(
            error.description
              == "Can't use the PostgreSQL location: a URL with the scheme `https` is not a"
              + " PostgreSQL location; write a `postgresql://` URL, such as"
              + " `postgresql://db.example.com/app`")
        }
      }

      @Test func neverShowsThePasswordOfAURL() throws {
        let location = try PostgresLocation("postgresql://alice:s3cr%21t-pw@db.example.com/app")
        #expect(location.parameters["password"] == "s3cr!t-pw")
        for text in [
          location.description, location.debugDescription, String(describing: location),
          String(reflecting: location), "\(location)", dumped(location),
        ] {
          #expect(!text.contains("s3cr"), "\(text)")
          #expect(text.contains("db.example.com"))
        }
      }

      @Test func neverShowsThePasswordOfAConnectionString() throws {
        let location = try PostgresLocation(
          "host=db.example.com dbname=app user=alice password='pa ss\\'word'")
        #expect(location.parameters["password"] == "pa ss'word")
        for text in [
          location.description, location.debugDescription, String(reflecting: location),
          dumped(location),
        ] {
          #expect(!text.contains("pa ss"), "\(text)")
          #expect(text.contains("`app`"))
        }
      }

      @Test func aStringLibpqCantReadIsAnErrorWithoutItsPassword() throws {
        // libpq quotes the whole URL when its IPv6 host is not closed.
        let inputs = [
          "postgresql://alice:hunter2@[::1/app",
          "postgresql://db/app?password=hunter2&bogus=1",
          "host=db password=hunter2 nonsense",
          "host=db password = 'hunter2' bogus=1",
        ]
        for input in inputs {
          do {
            _ = try PostgresLocation(input)
            Issue.record("`\(input)` should not be read")
          } catch let error as PostgresError {
            #expect(error.code == .invalidLocation)
            #expect(
              error.description.hasPrefix(
                "Can't use the PostgreSQL location: libpq can't read it: "))
            #expect(!error.description.contains("hunter2"), "\(error)")
          }
        }
      }

      /// A password with a space, unquoted, makes libpq stumble on its second word: the
      /// message never shows it.
      @Test func aPasswordWithASpaceNeverAppearsInTheParseError() throws {
        for input in [
          "host=/tmp dbname=app password=correct horse", "password=correct horse host=/tmp",
        ] {
          do {
            _ = try PostgresLocation(input)
            Issue.record("`\(input)` should not be read")
          } catch let error as PostgresError {
            #expect(error.code == .invalidLocation)
            #expect(!error.description.contains("horse"), "\(error)")
            #expect(!error.description.contains("correct"), "\(error)")
            #expect(error.description.contains("missing \"=\""), "\(error)")
          }
        }
      }

      /// Values libpq only checks when connecting are refused when the string is read, as
      /// mistakes in it (`invalidLocation`, which the command line reports as a usage error).
      @Test func aBogusSSLModeOrPortIsAnInvalidLocation() throws {
        let cases = [
          ("host=/tmp sslmode=bogus", "`sslmode=bogus` is not a setting libpq knows; write one of"),
          ("postgresql://db:99999/app", "`port=99999` is not a port; write a number from 1 to"),
          ("host=a,b port=5432,0", "`port=0` is not a port"),
          ("host=a,b target_session_attrs=writable", "`target_session_attrs=writable` is not"),
        ]
        for (input, expected) in cases {
          #expect(throws: PostgresError.self) { try PostgresLocation(input) }
          do {
            _ = try PostgresLocation(input)
          } catch let error as PostgresError {
            #expect(error.code == .invalidLocation)
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.description.hasSuffix("."), "\(error)")
          }
        }
        #expect(try PostgresLocation("host=a,b port=5432,5433 sslmode=require").port == nil)
        #expect(try PostgresLocation("postgresql://db:6543/app").port == 6543)
      }

      /// A store location read from a connection string keeps the string (to open the store)
      /// but never shows it: not in its description, debug description or `dump`.
      @Test func aStoreLocationNeverShowsItsConnectionString() throws {
        let store = try StoreLocation(
          "host=/tmp dbname=app user=alice password='correct horse'", what: "--store",
          command: "test")
        var dumped = ""
        dump(store, to: &dumped)
        for text in [dumped, String(reflecting: store), "\(store)", String(describing: [store])] {
          #expect(!text.contains("horse"), "\(text)")
          #expect(text.contains("app"), "\(text)")
        }
      }

      @Test func equalLocationsAreEqualAndHashAlike() throws {
        let first = try PostgresLocation("postgresql://alice@db/app")
        let second = try PostgresLocation("host=db user=alice dbname=app")
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        #expect(try PostgresLocation("postgresql://alice@db/other") != first)
      }

      @Test func theConnectionStringReadsBackTheSameLocation() throws {
        let location = try PostgresLocation(
          "postgresql://alice:it's%20me@db/app?options=-c%20x%3D1")
        #expect(try PostgresLocation(location.connectionString) == location)
      }

      private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
      }
    }
  }
#endif
