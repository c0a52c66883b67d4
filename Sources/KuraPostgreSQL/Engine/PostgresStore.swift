import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  /// Opens a model store in a PostgreSQL database: connects (a server down, a wrong database
  /// or a refused password is ``StoreError/Code/cannotOpen``, naming the database and server),
  /// checks that the server can hold Swift's text (UTF-8, ICU), and runs the store's examination
  /// (a ``StoreExaminer``) before anything is written. Setting it up afterwards is the store's,
  /// shared by every engine; the store's SQL functions are created inside its first schema change
  /// (``PostgresStorePool/writeSchemaChanges(_:)``).
  package enum PostgresStore {
    /// Opens the store at `location`, examined by `examine`; with `readOnly`, a store that would
    /// have to be written to open is refused.
    package static func open(
      _ location: PostgresLocation, readOnly: Bool, settings: PostgresStoreSettings,
      examine: StoreExaminer
    ) throws -> OpenedStore {
      let url = location.passwordFreeURL
      do {
        let pool = try PostgresStorePool(
          location: location, readOnly: readOnly, settings: settings)
        let outcome = try pool.read { db -> StoreFinding in
          guard let connection = db as? PostgresStoreConnection else { return .new }
          try checkServer(connection.connection, location: location)
          var outcome = try examine(connection)
          if outcome == .current,
            try !PostgresStoreEngine.functionsAreCurrent(connection.connection)
          {
            outcome = .needsChanges
          }
          return outcome
        }
        if readOnly && outcome != .current {
          let why =
            outcome == .new
            ? "there is no store in the database yet"
            : "its tables or metadata must first be brought up to date for these models"
          throw StoreError(
            outcome == .new ? .cannotOpen : .outdatedStore, url: url,
            message:
              "Can't read store `\(location.storeName)`: \(why). It was opened for reading only, "
              + "so nothing was created or changed; open it for writing (such as by saving "
              + "something) first.")
        }
        return OpenedStore(url: url, pool: pool, finding: outcome)
      } catch let error as PostgresError {
        throw StoreError.wrapping(postgres: error, url: url, doing: "open")
      }
    }

    /// Refuses a server whose text can't hold Swift's strings exactly (not UTF-8) or that has
    /// no ICU collations (Swift's `==` on text needs one).
    private static func checkServer(_ db: PostgresConnection, location: PostgresLocation) throws {
      let encoding = try db.queryFirst("SHOW server_encoding") { $0.string(at: 0) } ?? ""
      guard encoding.uppercased() == "UTF8" else {
        throw StoreError(
          .cannotOpen, url: location.passwordFreeURL,
          message:
            "Can't open store `\(location.storeName)`: the database's encoding is \(encoding), "
            + "and Kura stores Swift's text only in UTF8 databases. Create the database with "
            + "`createdb --encoding=UTF8 --template=template0`.")
      }
      let icu =
        try db.queryFirst(
          "SELECT 1 FROM pg_catalog.pg_collation WHERE collname = 'und-x-icu'"
        ) { _ in true } ?? false
      guard icu else {
        throw StoreError(
          .cannotOpen, url: location.passwordFreeURL,
          message:
            "Can't open store `\(location.storeName)`: the server has no ICU collations, which "
            + "Kura needs to compare text as Swift does. Use a PostgreSQL server built with ICU "
            + "(as Debian's and Ubuntu's packages are).")
      }
    }
  }
#endif
