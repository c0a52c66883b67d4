import Foundation
import KuraBase
import KuraStore

#if canImport(CLibPQ)
  internal import CLibPQ
#endif

/// Where a PostgreSQL database is: a `postgresql://` (or `postgres://`) URL or a libpq connection
/// string, as libpq reads it.
///
/// The location keeps what the string says, read by libpq itself (`PQconninfoParse`), so every
/// libpq setting works: `host` (a name, an address or a Unix socket folder), `port`, `dbname`,
/// `user`, `password`, `sslmode`, `connect_timeout`, `options`, `passfile`, `service`…
/// Whatever the string leaves out comes from libpq's defaults and environment (`PGHOST`,
/// `PGDATABASE`, `PGUSER`, …) when connecting. A password is best left out of the string: libpq
/// reads it from the file `PGPASSFILE` names (`~/.pgpass` by default) or from `PGPASSWORD`.
///
/// A location never shows its password: its ``description`` (and its debug description and
/// mirror) names the server, database and user only.
///
/// For example:
///
/// ```swift
/// let location = try PostgresLocation("postgresql://alice@db.example.com/app")
/// print(location)  // database `app` on `db.example.com:5432` as user `alice`
/// let local = try PostgresLocation("host=/var/run/postgresql dbname=app")
/// ```
package struct PostgresLocation: Sendable, Hashable, CustomStringConvertible,
  CustomDebugStringConvertible, CustomReflectable
{
  /// The settings the string gives, by libpq keyword (`host`, `dbname`, `password`…).
  package let parameters: [String: String]

  /// Reads a `postgresql://` URL or a libpq `keyword=value` connection string.
  ///
  /// For example:
  ///
  /// ```swift
  /// let url = try PostgresLocation("postgresql:///app?host=/var/run/postgresql")
  /// let keywords = try PostgresLocation("host=db.example.com dbname=app user=alice")
  /// ```
  ///
  /// - Parameter connectionString: The URL or connection string; an empty string means
  ///   libpq's defaults and environment alone.
  /// - Throws: ``PostgresError`` with code ``PostgresError/Code/invalidLocation`` when libpq can't
  ///   read it (its message never quotes a password), or on platforms without PostgreSQL.
  package init(_ connectionString: String) throws {
    #if canImport(CLibPQ)
      var errorMessage: UnsafeMutablePointer<CChar>?
      guard let options = PQconninfoParse(connectionString, &errorMessage) else {
        let text = errorMessage.map { String(cString: $0) } ?? "libpq is out of memory"
        PQfreemem(errorMessage)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        throw PostgresError(
          code: .invalidLocation,
          message: "libpq can't read it: \(Self.redacting(trimmed, secretsOf: connectionString))"
            + (trimmed.hasSuffix(".") ? "" : ".")
            + " Write a `postgresql://` URL or a connection string such as"
            + " `host=/var/run/postgresql dbname=app`",
          server: "")
      }
      defer { PQconninfoFree(options) }
      var parameters: [String: String] = [:]
      var option = options
      while let keyword = option.pointee.keyword {
        if let value = option.pointee.val {
          parameters[String(cString: keyword)] = String(cString: value)
        }
        option += 1
      }
      try Self.validate(parameters)
      self.parameters = parameters
    #else
      throw PostgresError(
        code: .invalidLocation,
        message:
          "this platform has no PostgreSQL engine (Kura builds it with libpq, on Linux only)",
        server: "")
    #endif
  }

  /// Reads a `postgresql://` or `postgres://` URL.
  ///
  /// For example:
  ///
  /// ```swift
  /// if let url = URL(string: "postgresql://db.example.com/app") {
  ///   let location = try PostgresLocation(url: url)
  /// }
  /// ```
  ///
  /// - Parameter url: The URL.
  /// - Throws: ``PostgresError`` with code ``PostgresError/Code/invalidLocation`` for another
  ///   scheme or a URL libpq can't read.
  package init(url: URL) throws {
    let scheme = url.scheme?.lowercased() ?? ""
    guard scheme == "postgresql" || scheme == "postgres" else {
      throw PostgresError(
        code: .invalidLocation,
        message:
          "a URL with the scheme `\(scheme)` is not a PostgreSQL location; write a"
          + " `postgresql://` URL, such as `postgresql://db.example.com/app`",
        server: "")
    }
    try self.init(url.absoluteString)
  }

  package init(parameters: [String: String]) {
    self.parameters = parameters
  }

  // MARK: Parts

  /// The host the string names: a host name, an IP address (`hostaddr`), or a Unix socket
  /// folder (beginning with `/`); `nil` when libpq's default (or `PGHOST`) applies.
  ///
  /// For example: `try PostgresLocation("postgresql://db.example.com/app").host` is
  /// `"db.example.com"`.
  package var host: String? { parameters["host"] ?? parameters["hostaddr"] }

  /// The port the string names; `nil` when libpq's default (5432, or `PGPORT`) applies.
  ///
  /// For example: `try PostgresLocation("postgresql://db:6543/app").port` is `6543`.
  package var port: Int? { parameters["port"].flatMap { Int($0) } }

  /// The database the string names; `nil` when libpq's default (`PGDATABASE`, else the user
  /// name) applies.
  ///
  /// For example: `try PostgresLocation("dbname=app").database` is `"app"`.
  package var database: String? { parameters["dbname"] }

  /// The user the string names; `nil` when libpq's default (`PGUSER`, else the operating
  /// system user) applies.
  ///
  /// For example: `try PostgresLocation("postgresql://alice@db/app").user` is `"alice"`.
  package var user: String? { parameters["user"] }

  /// The same location with one libpq setting changed (or removed, for `nil`).
  package func setting(_ keyword: String, to value: String?) -> PostgresLocation {
    var parameters = parameters
    parameters[keyword] = value
    return PostgresLocation(parameters: parameters)
  }

  /// The location as a libpq `keyword='value'` connection string, password included (for
  /// handing to a child process, never for printing).
  package var connectionString: String {
    parameters.sorted { $0.key < $1.key }.map { keyword, value in
      let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: "'", with: "\\'")
      return "\(keyword)='\(escaped)'"
    }.joined(separator: " ")
  }

  // MARK: Describing

  /// The database, server and user, with libpq's defaults and environment filling what the
  /// string leaves out, such as: database `app` on `db.example.com:5432` as user `alice`.
  /// Never the password.
  package var description: String {
    let defaults = Self.environmentDefaults()
    func value(_ keyword: String) -> String? { parameters[keyword] ?? defaults[keyword] }
    let user = value("user")
    return Self.describe(
      host: value("host") ?? value("hostaddr"), port: value("port"),
      database: value("dbname") ?? user, user: user, service: parameters["service"])
  }

  /// `PostgresLocation(database `app` on … as user `alice`)`; never the password.
  package var debugDescription: String { "PostgresLocation(\(description))" }

  /// The parts a debugger or `dump` shows: host, port, database and user; never the password.
  package var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "host": host as Any, "port": port as Any, "database": database as Any,
        "user": user as Any,
      ], displayStyle: .struct)
  }

  /// Names a server without secrets: database `app` on `db:5432` as user `alice`, or database
  /// `app` on socket `/run/postgresql/.s.PGSQL.5432` as user `alice`.
  package static func describe(
    host: String?, port: String?, database: String?, user: String?, service: String? = nil
  ) -> String {
    var text = "database `\(database ?? "(default)")`"
    let port = port.flatMap { $0.isEmpty ? nil : $0 }
    if let host, !host.isEmpty {
      if host.hasPrefix("/") || host.hasPrefix("@") {
        let folder = host.hasSuffix("/") ? String(host.dropLast()) : host
        text += " on socket `\(folder)/.s.PGSQL.\(port ?? "5432")`"
      } else {
        text += " on `\(host):\(port ?? "5432")`"
      }
    } else if let service {
      text += " of service `\(service)`"
    } else {
      text += " on the default socket" + (port.map { " (port \($0))" } ?? "")
    }
    if let user, !user.isEmpty { text += " as user `\(user)`" }
    return text
  }

  /// libpq's defaults and environment for the parts a description names (never a password).
  private static func environmentDefaults() -> [String: String] {
    var defaults: [String: String] = [:]
    #if canImport(CLibPQ)
      guard let options = PQconndefaults() else { return defaults }
      defer { PQconninfoFree(options) }
      var option = options
      while let keyword = option.pointee.keyword {
        let name = String(cString: keyword)
        if ["host", "hostaddr", "port", "dbname", "user"].contains(name),
          let value = option.pointee.val
        {
          defaults[name] = String(cString: value)
        }
        option += 1
      }
    #endif
    return defaults
  }

  /// The settings whose values libpq only checks when connecting, each with the values it
  /// takes: a wrong one is a mistake in the string, reported when it is read.
  private static let choices: [String: [String]] = [
    "sslmode": ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"],
    "gssencmode": ["disable", "prefer", "require"],
    "target_session_attrs": [
      "any", "read-write", "read-only", "primary", "standby", "prefer-standby",
    ],
  ]

  /// Refuses values libpq would only refuse when connecting (as a failed connection): a
  /// setting outside its choices, or a port that is not a number from 1 to 65535.
  package static func validate(_ parameters: [String: String]) throws {
    for (keyword, allowed) in choices.sorted(by: { $0.key < $1.key }) {
      guard let value = parameters[keyword], !allowed.contains(value) else { continue }
      throw PostgresError(
        code: .invalidLocation,
        message:
          "`\(keyword)=\(value)` is not a setting libpq knows; write one of "
          + allowed.map { "`\($0)`" }.joined(separator: ", ") + ".",
        server: "")
    }
    if let ports = parameters["port"] {
      // A multi-host string gives one port per host, separated by commas.
      for port in ports.split(separator: ",", omittingEmptySubsequences: false) {
        let trimmed = port.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { continue }
        guard let number = Int(trimmed), (1...65535).contains(number) else {
          throw PostgresError(
            code: .invalidLocation,
            message:
              "`port=\(trimmed)` is not a port; write a number from 1 to 65535 (5432 is "
              + "PostgreSQL's), or leave it out.",
            server: "")
        }
      }
    }
  }

  /// `message` with every password `input` may hold replaced by `•••` (libpq's messages about a
  /// string it can't read may quote the string).
  package static func redacting(_ message: String, secretsOf input: String) -> String {
    SecretRedaction.redacting(message, secretsOf: input)
  }
}

extension PostgresLocation {
  /// The settings that never hold a secret, kept in ``passwordFreeURL``.
  private static let publicKeywords: Set<String> = [
    "host", "hostaddr", "port", "dbname", "user", "service", "sslmode", "application_name",
    "options", "connect_timeout", "target_session_attrs",
  ]

  /// The location as a `postgresql:` URL without its password (for errors and `StoreError.url`;
  /// connecting with it needs the password from `PGPASSFILE` or the environment).
  package var passwordFreeURL: URL {
    var components = URLComponents()
    components.scheme = "postgresql"
    components.host = ""
    components.path = "/"
    components.queryItems = parameters.filter { Self.publicKeywords.contains($0.key) }
      .sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
    return components.url ?? URL(string: "postgresql:///") ?? URL(fileURLWithPath: "/")
  }

  /// Whether `url` is a `postgresql://` (or `postgres://`) URL.
  ///
  /// For example: `PostgresLocation.isPostgresURL(URL(string: "postgresql:///app")!)` is true.
  ///
  /// - Parameter url: Any URL.
  /// - Returns: Whether its scheme names PostgreSQL.
  package static func isPostgresURL(_ url: URL) -> Bool {
    let scheme = url.scheme?.lowercased()
    return scheme == "postgresql" || scheme == "postgres"
  }

  /// How store messages name this location: the database and the server (host and port, or
  /// the socket folder and port), such as `app on db.example.com:5432`. Never a password.
  ///
  /// For example: `print(try PostgresLocation("postgresql://db/app").storeName)`.
  package var storeName: String {
    var database = parameters["dbname"]
    var host = parameters["host"] ?? parameters["hostaddr"]
    var port = parameters["port"]
    var user = parameters["user"]
    #if canImport(CLibPQ)
      if database == nil || host == nil || port == nil {
        let defaults = Self.environmentDefaults()
        host = host ?? defaults["host"]
        port = port ?? defaults["port"]
        user = user ?? defaults["user"]
        database = database ?? defaults["dbname"] ?? user
      }
    #endif
    let server =
      (host.map { $0.isEmpty ? "localhost" : $0 } ?? "localhost") + ":" + (port ?? "5432")
    return "\(database ?? "(default)") on \(server)"
  }
}
