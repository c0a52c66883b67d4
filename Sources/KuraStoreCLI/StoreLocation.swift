import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL

/// Where a tool's model store is: an SQLite file, or a PostgreSQL database, as the `--store`
/// option, a `<store>` argument or the `KURA_STORE_URL` environment variable names it.
///
/// A `postgresql://` or `postgres://` URL, or a libpq connection string such as
/// `host=/var/run/postgresql dbname=app`, is a PostgreSQL database; a `file://` URL or anything
/// else is a file path. Another scheme (`mysql://…`) or a URL libpq can't read is a
/// ``UsageError`` that quotes the value without its password. Printing a location never shows a
/// password either.
///
/// For example:
///
/// ```swift
/// let store = try StoreLocation.resolve(invocation, default: try StudentStore.url())
/// let container = try ModelContainer(for: Student.self, configurations: try store.configuration)
/// print(store)   // the file's path, or: database `app` on `db.example.com:5432` as user `alice`
/// ```
package enum StoreLocation: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable, Encodable
{
  /// An SQLite store file.
  case file(URL)
  /// A PostgreSQL database: where it is (printable), and the URL or connection string as given
  /// (with its password, for connecting only).
  case postgres(PostgresLocation, connectionString: String)

  /// The environment variable naming the store when `--store` is not given.
  ///
  /// For example: `KURA_STORE_URL=postgresql://db.example.com/app students list`.
  package static let environmentVariable = "KURA_STORE_URL"

  /// The `--store` option every command that opens the store takes.
  ///
  /// For example:
  ///
  /// ```swift
  /// Command(name: "list", abstract: "Lists.", options: [StoreLocation.option(default: "…")])
  /// ```
  ///
  /// - Parameter defaultStore: Where the store is when neither the option nor
  ///   `KURA_STORE_URL` names one, for the help text.
  /// - Returns: The option.
  package static func option(default defaultStore: String) -> Option {
    Option(
      "store",
      help: "The store: a file path, or a PostgreSQL URL such as postgresql://host/app or a "
        + "connection string such as \"host=/run/postgresql dbname=app\" (default: "
        + "$\(environmentVariable), else \(defaultStore)).",
      valueName: "path-or-url")
  }

  /// Reads a store location a person gave.
  ///
  /// For example:
  ///
  /// ```swift
  /// let store = try StoreLocation("postgresql://db/app", what: "--store", command: "students add")
  /// ```
  ///
  /// - Parameters:
  ///   - text: A file path, a `file://`, `postgresql://` or `postgres://` URL, or a libpq
  ///     connection string.
  ///   - what: How to name where the text came from, such as `--store` or `<store>`.
  ///   - command: The command path, for the error's pointer to its help.
  /// - Throws: ``UsageError`` for an empty text, another URL scheme, or a PostgreSQL URL or
  ///   connection string libpq can't read; its message never quotes a password.
  package init(_ text: String, what: String, command: String) throws {
    let quoted = "`\(PostgresLocation.redacted(text))` is not a valid value for \(what): "
    let fix =
      "give a file path such as `store.sqlite`, or a PostgreSQL URL such as "
      + "`postgresql://db.example.com/app`"
      + (what.contains(Self.environmentVariable) ? " (or unset \(Self.environmentVariable))." : ".")
    guard !text.isEmpty else {
      throw UsageError("An empty value is not a valid value for \(what): " + fix, command: command)
    }
    if let scheme = Self.scheme(of: text) {
      switch scheme.lowercased() {
      case "postgresql", "postgres":
        // libpq reads the scheme in lowercase only.
        let url = scheme.lowercased() + text.dropFirst(scheme.count)
        self = .postgres(
          try Self.readPostgres(url, quoted: quoted, command), connectionString: url)
      case "file":
        guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
          throw UsageError(
            quoted + "it is not a file URL such as `file:///var/app/store.sqlite`; "
              + fix, command: command)
        }
        self = .file(url)
      default:
        throw UsageError(
          quoted + "Kura keeps a store in an SQLite file or a PostgreSQL database, and a "
            + "`\(scheme)://` URL names neither; " + fix, command: command)
      }
    } else if PostgresLocation.isConnectionString(text) {
      self = .postgres(try Self.readPostgres(text, quoted: quoted, command), connectionString: text)
    } else {
      self = .file(URL(fileURLWithPath: text))
    }
  }

  /// The store a command uses: its `--store` option, else `KURA_STORE_URL` (when set and not
  /// empty), else the file `defaultStore`.
  ///
  /// For example: `let store = try StoreLocation.resolve(invocation, default: try url())`.
  ///
  /// - Parameters:
  ///   - invocation: The command's invocation (which declares ``option(default:)``).
  ///   - defaultStore: The app's own store file, used when nothing else names a store.
  /// - Returns: The location.
  /// - Throws: ``UsageError`` for a value that names no store (see ``init(_:what:command:)``),
  ///   or the error `defaultStore` throws.
  package static func resolve(
    _ invocation: Invocation, default defaultStore: @autoclosure () throws -> URL
  ) throws -> StoreLocation {
    if let given: String = try invocation.option("store") {
      return try StoreLocation(given, what: "--store", command: invocation.commandPath)
        .inExistingFolder(given, what: "--store", command: invocation.commandPath)
    }
    if let value = ProcessInfo.processInfo.environment[environmentVariable], !value.isEmpty {
      let what = "the environment variable \(environmentVariable)"
      return try StoreLocation(value, what: what, command: invocation.commandPath)
        .inExistingFolder(value, what: what, command: invocation.commandPath)
    }
    return .file(try defaultStore())
  }

  /// This location, when it is a database or a file whose folder exists: a store a person names
  /// is never given folders of its own (the app's default store is, in its data folder).
  private func inExistingFolder(_ text: String, what: String, command: String) throws
    -> StoreLocation
  {
    guard case .file(let url) = self else { return self }
    let folder = url.deletingLastPathComponent()
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      return self
    }
    throw UsageError(
      "`\(text)` is not a valid value for \(what): the folder `\(folder.path)` "
        + (FileManager.default.fileExists(atPath: folder.path) ? "is a file" : "doesn't exist")
        + "; create the folder first, or give a path in an existing one.", command: command)
  }

  /// The configuration that opens this store (for writing; set
  /// ``ModelConfiguration/allowsSave`` off to only read).
  ///
  /// For example:
  ///
  /// ```swift
  /// let container = try ModelContainer(for: Trip.self, configurations: try store.configuration)
  /// ```
  package var configuration: ModelConfiguration {
    get throws {
      switch self {
      case .file(let url): return .url(url)
      case .postgres(_, let connectionString):
        return try .postgres(connectionString: connectionString)
      }
    }
  }

  /// The configuration that only reads this store, or `nil` when there is no store there yet
  /// (no file, or an empty database), so a command that only reads can say "nothing yet"
  /// without creating anything.
  ///
  /// For example:
  ///
  /// ```swift
  /// guard let configuration = try store.readingConfiguration() else { return print("None yet.") }
  /// ```
  ///
  /// - Returns: The configuration with ``ModelConfiguration/allowsSave`` off, or `nil`.
  /// - Throws: ``StoreError`` when a PostgreSQL server can't be reached or read.
  package func readingConfiguration() throws -> ModelConfiguration? {
    switch self {
    case .file(let url):
      guard (try? FileManager.default.attributesOfItem(atPath: url.path)) != nil else { return nil }
      return .readOnly(url)
    case .postgres:
      var configuration = try configuration
      guard try !StoreInspector(configuration: configuration).isEmpty else { return nil }
      configuration.allowsSave = false
      return configuration
    }
  }

  /// Whether the store is a PostgreSQL database.
  ///
  /// For example: `if store.isPostgres { print("on a server") }`.
  package var isPostgres: Bool {
    if case .postgres = self { return true }
    return false
  }

  /// The file's path, or the database, server and user (never the password), such as:
  /// database `app` on `db.example.com:5432` as user `alice`.
  package var description: String {
    switch self {
    case .file(let url): return url.path
    case .postgres(let location, _): return location.description
    }
  }

  /// Encodes the engine and where the store is: `{"engine": "sqlite", "path": …}` or
  /// `{"engine": "postgresql", "location": …}` (never the password).
  ///
  /// For example: `try invocation.printJSON(store)`.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: The encoder's error.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .file(let url):
      try container.encode("sqlite", forKey: .engine)
      try container.encode(url.path, forKey: .path)
    case .postgres(let location, _):
      try container.encode("postgresql", forKey: .engine)
      try container.encode(location.description, forKey: .location)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case engine, path, location
  }

  /// `StoreLocation(…)` with the ``description``: never the connection string a PostgreSQL
  /// location was read from (it may hold a password).
  ///
  /// For example: `debugPrint(store)`.
  package var debugDescription: String { "StoreLocation(\(description))" }

  /// What `dump` and debuggers show: the engine and the ``description``, never the connection
  /// string a PostgreSQL location was read from.
  ///
  /// For example: `dump(store)`.
  package var customMirror: Mirror {
    switch self {
    case .file(let url):
      return Mirror(self, children: ["file": url.path], displayStyle: .enum)
    case .postgres(let location, _):
      return Mirror(self, children: ["postgres": location.description], displayStyle: .enum)
    }
  }

  /// How messages name the store: the file's name, or the database and server (as store
  /// errors name it, such as `app on db.example.com:5432`).
  ///
  /// For example: `print("Migrated \(store.name).")   // Migrated default.store.`
  package var name: String {
    switch self {
    case .file(let url): return url.lastPathComponent
    case .postgres(let location, _): return location.storeName
    }
  }

  /// The scheme of `text` when it is written as a URL (`scheme://…`), else `nil`.
  private static func scheme(of text: String) -> String? {
    guard let separator = text.range(of: "://") else { return nil }
    let scheme = text[..<separator.lowerBound]
    guard let first = scheme.first, first.isASCII, first.isLetter,
      scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
    else { return nil }
    return String(scheme)
  }

  /// The PostgreSQL location `text` names, or a usage error saying why libpq can't read it.
  private static func readPostgres(_ text: String, quoted: String, _ command: String) throws
    -> PostgresLocation
  {
    do {
      return try PostgresLocation(text)
    } catch let error as PostgresError {
      // libpq's messages end without a period; Kura's own (a refused port) end with one.
      let message = error.message.hasSuffix(".") ? error.message : error.message + "."
      throw UsageError(quoted + message, command: command)
    }
  }
}
