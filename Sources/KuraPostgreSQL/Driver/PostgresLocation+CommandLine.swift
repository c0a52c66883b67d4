import Foundation
import KuraBase
import KuraStore

extension PostgresLocation {
  /// `text` with every password it holds replaced by `•••`: the password of a URL's user
  /// information (`scheme://user:password@host`, any scheme) and every `password=` setting of a
  /// connection string or a URL's query. For quoting a location a person typed (in an error
  /// about it) without its secret.
  ///
  /// For example:
  ///
  /// ```swift
  /// PostgresLocation.redacted("postgresql://alice:s3cret@db/app")  // postgresql://alice:•••@db/app
  /// PostgresLocation.redacted("host=db password=s3cret")           // host=db password=•••
  /// PostgresLocation.redacted("Can't use s3cret.", secretsOf: "postgresql://a:s3cret@db/app")
  /// ```
  ///
  /// - Parameters:
  ///   - text: A URL or connection string as given, or a message that may quote one.
  ///   - input: The URL or connection string whose passwords to remove from `text`, when `text`
  ///     is a message about it (by default, `text` itself).
  /// - Returns: The text without the passwords.
  package static func redacted(_ text: String, secretsOf input: String? = nil) -> String {
    redacting(text, secretsOf: input ?? text)
  }

  /// Whether `text` is a libpq `keyword=value` connection string rather than a file path: it
  /// starts with a keyword libpq knows (`host`, `dbname`, `user`, `service`…) followed by `=`.
  /// A path such as `notes=old.sqlite` is not one (`notes` is no libpq keyword).
  ///
  /// For example:
  ///
  /// ```swift
  /// PostgresLocation.isConnectionString("host=/var/run/postgresql dbname=app")  // true
  /// PostgresLocation.isConnectionString("default.store")                        // false
  /// ```
  ///
  /// - Parameter text: What a person gave as a store's location.
  /// - Returns: `true` when libpq should read it.
  package static func isConnectionString(_ text: String) -> Bool {
    let trimmed = text.drop { $0.isWhitespace }
    let keyword = trimmed.prefix { $0.isASCII && ($0.isLetter || $0 == "_") }
    guard !keyword.isEmpty else { return false }
    let rest = trimmed.dropFirst(keyword.count).drop { $0.isWhitespace }
    guard rest.first == "=" else { return false }
    // libpq itself says whether it knows the keyword.
    return (try? PostgresLocation("\(keyword)=''")) != nil
  }
}

extension PostgresLocation {
  /// The same location with every transaction of its connections read-only
  /// (`default_transaction_read_only`), so a connection that only inspects can't create or
  /// change anything on the server.
  package var readingOnly: PostgresLocation {
    let options = [parameters["options"], "-c default_transaction_read_only=on"]
      .compactMap { $0 }.joined(separator: " ")
    return setting("options", to: options)
  }
}
