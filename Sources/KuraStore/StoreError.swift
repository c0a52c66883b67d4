import Foundation
import KuraBase
import KuraSQLite

/// An error of the model store: a model Kura cannot store, a store file that does not match the
/// models or is not a store at all, or a failure reading or writing it.
///
/// Match on ``code``; the other properties carry the context (model, property, column, file, SQL)
/// and ``underlying`` the engine's error, when there is one (an ``SQLiteError`` on SQLite, the
/// PostgreSQL engine's own on PostgreSQL). The description follows Kura's pattern: what failed, the item in
/// backticks, why, what to do.
///
/// For example:
///
/// ```swift
/// do {
///   let container = try ModelContainer(for: Student.self, configurations: .url(storeURL))
/// } catch let error as StoreError where error.code == .schemaMismatch {
///   print(error.model ?? "", error.column ?? "")
/// }
/// ```
public struct StoreError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure this is.
  ///
  /// For example: `if error.code == .notAStore { … }`.
  public enum Code: String, Sendable, Hashable {
    /// A stored property's type cannot be stored.
    case unsupportedProperty
    /// The model type cannot be used as a model (no stored `id`, not a struct, bad schema).
    case invalidModel
    /// The store's tables do not match the models.
    case schemaMismatch
    /// The file is not an SQLite database.
    case notAStore
    /// The file is an SQLite database but damaged.
    case damaged
    /// The store was written by a newer version of Kura (its format) or of the app (its
    /// schema version); it was left untouched.
    case newerStore
    /// The file or its folder cannot be opened or created.
    case cannotOpen
    /// The store is older than this version of the app or of Kura (its format, tables, columns
    /// or indexes must be brought up to date) and it was opened with
    /// ``ModelConfiguration/allowsSave`` off, so it was left untouched. Opening it for writing
    /// brings it up to date in one transaction.
    case outdatedStore
    /// The model type is not one of the container's models.
    case modelNotInContainer
    /// A model could not be turned into a row.
    case encodingFailed
    /// A row could not be turned into a model.
    case decodingFailed
    /// A predicate or sort could not be run as asked (such as an in-memory fallback forbidden by
    /// the fetch descriptor).
    case unsupportedQuery
    /// A fetch needed in-memory evaluation and its descriptor set `allowsInMemoryFallback` to
    /// `false`; ``StoreError/inMemoryParts`` lists what could not become SQL.
    case inMemoryFallbackForbidden
    /// `fetchLimit` or `fetchOffset` was negative.
    case negativeLimit
    /// The engine (SQLite, PostgreSQL) reported an error that no other code classifies, such as
    /// a full disk or a conflict the server ended the transaction for; the engine's own error
    /// is ``StoreError/underlying`` (an ``SQLiteError`` on SQLite).
    case engine
    /// The connection to the PostgreSQL server broke before the work committed: nothing of it
    /// was written. Connect again (the next call does) and retry it.
    case connectionLost
    /// The connection to the PostgreSQL server broke while a save was committing, and Kura
    /// could not find out whether it committed: the server stayed unreachable for
    /// ``PostgresStoreSettings/commitOutcomeWait``, or the broken connection's server process
    /// did not end within it. The save
    /// may or may not have been written: read the data back before retrying.
    case commitOutcomeUnknown
    /// Every connection a PostgreSQL store's container may open
    /// (``PostgresStoreSettings/maximumConnections``), or its writer connection, stayed busy
    /// for ``PostgresStoreSettings/connectionWait``: nothing was done; retry, or allow more.
    case busy
    /// A delete was refused by a ``DeleteRule/deny`` rule: other models still refer to it.
    case deleteDenied
    /// A saved model refers to a model that does not exist (a dangling reference); nothing was
    /// saved.
    case danglingReference
    /// The store's models changed in a way Kura cannot migrate by itself; nothing was changed.
    case migrationRefused
    /// A migration stage failed; the store was left as it was.
    case migrationFailed
    /// The history asked for was trimmed (see ``HistoryRetention``): fetch the models again and
    /// continue from ``ModelContainer/currentHistoryToken()``.
    case historyTrimmed
    /// A context saved, or ``ModelContainer/write(_:)`` was called, inside the body of
    /// ``ModelContainer/write(_:)`` on the same container: only the context given to the body
    /// writes there (the write waits for nothing else).
    case nestedWrite
    /// ``ModelContainer/write(_:)`` met a concurrent save it cannot be ordered after (on
    /// PostgreSQL, a plain save or a history trim changed or deleted a row the write then
    /// changed: `could not serialize access`, a deadlock, or a unique value inserted meanwhile).
    /// Nothing of the write was written: call `write` again, which reads the new state. Kura
    /// does not run the body again by itself, because the body is the app's code and may have
    /// effects outside the store. Never thrown on SQLite, where a write waits for every other
    /// writer.
    case writeConflict

  }

  /// What kind of failure this is, such as ``Code/schemaMismatch``.
  ///
  /// For example: `catch let error as StoreError where error.code == .notAStore { … }`.
  public let code: Code
  /// The model type's name, when one is involved, such as `Student`.
  ///
  /// For example: `print(error.model ?? "no model")`.
  public let model: String?
  /// The stored property, when one is involved.
  ///
  /// For example: `if error.property == "pinned" { … }`.
  public let property: String?
  /// The table column, when one is involved.
  ///
  /// For example: `print(error.column ?? "")`.
  public let column: String?
  /// The store file, when one is involved.
  ///
  /// For example: `print(error.url?.lastPathComponent ?? "in memory")`.
  public let url: URL?
  /// The SQL being run, when there was one (bound values never appear).
  ///
  /// For example: `print(error.sql ?? "")`.
  public let sql: String?
  /// The error underneath, when there is one: the engine's (an ``SQLiteError`` on SQLite;
  /// on PostgreSQL the engine's own error, which never holds a password), or the error a migration stage threw.
  ///
  /// For example:
  ///
  /// ```swift
  /// if let sqlite = error.underlying as? SQLiteError, sqlite.code == .constraint { … }
  /// ```
  public let underlying: (any Error)?
  /// For ``Code/inMemoryFallbackForbidden``: each part of the fetch that has no SQL form.
  public let inMemoryParts: [String]
  /// The full message: what failed, the item in backticks, why, what to do.
  ///
  /// For example: `print(error.message)`.
  public let message: String

  /// Creates an error; Kura creates these, your code matches on them.
  ///
  /// For example:
  ///
  /// ```swift
  /// let error = StoreError(.cannotOpen, message: "Can't open store `a.sqlite`: …")
  /// ```
  ///
  /// - Parameters:
  ///   - code: The kind of failure.
  ///   - model: The model type's name.
  ///   - property: The stored property.
  ///   - column: The column.
  ///   - url: The store file.
  ///   - sql: The SQL being run.
  ///   - underlying: The error underneath, such as an ``SQLiteError``.
  ///   - inMemoryParts: For ``Code/inMemoryFallbackForbidden``, the parts with no SQL form.
  ///   - message: The full message.
  public init(
    _ code: Code, model: String? = nil, property: String? = nil, column: String? = nil,
    url: URL? = nil, sql: String? = nil, underlying: (any Error)? = nil,
    inMemoryParts: [String] = [], message: String
  ) {
    self.code = code
    self.model = model
    self.property = property
    self.column = column
    self.url = url
    self.sql = sql
    self.underlying = underlying
    self.inMemoryParts = inMemoryParts
    self.message = message
  }

  /// For example: `print(error)`.
  ///
  /// The message, such as "Can't store `Trip.photo`: …".
  public var description: String { message }
}

extension StoreError: Equatable {
  /// Whether two errors are the same failure: every property but ``underlying``.
  ///
  /// For example: `if error == other { print("the same failure") }`.
  ///
  /// - Parameters:
  ///   - lhs: An error.
  ///   - rhs: Another error.
  /// - Returns: Whether they are equal.
  public static func == (lhs: StoreError, rhs: StoreError) -> Bool {
    lhs.code == rhs.code && lhs.model == rhs.model && lhs.property == rhs.property
      && lhs.column == rhs.column && lhs.url == rhs.url && lhs.sql == rhs.sql
      && lhs.inMemoryParts == rhs.inMemoryParts && lhs.message == rhs.message
  }
}

extension StoreError {
  /// Wraps an SQLite error met while using the store at `url`; corruption and "not a database"
  /// become ``Code/damaged`` and ``Code/notAStore``.
  package static func wrapping(_ error: any Error, url: URL?, doing action: String) -> any Error {
    if let error = error as? any StoreWrappableError {
      return error.storeError(url: url, doing: action)
    }
    guard let error = error as? SQLiteError else { return error }
    let file = storeLabel(url)
    switch error.code {
    case .notADatabase:
      return StoreError(
        .notAStore, url: url, sql: error.sql, underlying: error,
        message:
          "Can't open store \(file): the file is not an SQLite database. It was left untouched; "
          + "choose another file or move this one away.")
    case .corrupt:
      return StoreError(
        .damaged, url: url, sql: error.sql, underlying: error,
        message:
          "Can't \(action) store \(file): the database file is damaged (\(error.message)). It was "
          + "left untouched; restore it from a backup or check it with `kura store check`.")
    case .cannotOpen:
      return StoreError(
        .cannotOpen, url: url, sql: error.sql, underlying: error,
        message:
          "Can't open store \(file): \(error.message). Check that its folder exists and is "
          + "writable.")
    default:
      return StoreError(
        .engine, url: url, sql: error.sql, underlying: error,
        message: "Can't \(action) store \(file): \(error).")
    }
  }
}

extension StoreError {
  /// The error for a fetch that must not fall back to memory but would have to.
  package static func inMemoryFallbackForbidden(model: String, parts: [String]) -> StoreError {
    StoreError(
      .inMemoryFallbackForbidden, model: model, inMemoryParts: parts,
      message: "Can't fetch `\(model)` in SQL alone: " + parts.joined(separator: "; ")
        + ". Rewrite that part (see \"Querying Models\") or set `allowsInMemoryFallback` to true.")
  }

  /// The error for a negative `fetchLimit` or `fetchOffset`.
  package static func negativeLimit(model: String) -> StoreError {
    StoreError(
      .negativeLimit, model: model,
      message: "Can't fetch `\(model)`: `fetchLimit` and `fetchOffset` must not be negative."
        + " Pass nil or a value of 0 or more.")
  }
}

/// How messages name the store at `url`: the file's name in backticks, or for a PostgreSQL
/// store (a password-free `postgresql:` URL) its database and server; `inMemory` for none.
package func storeLabel(_ url: URL?, inMemory: String = "the in-memory store") -> String {
  guard let url else { return inMemory }
  if url.isFileURL { return "`\(url.lastPathComponent)`" }
  if let name = StoreLabels.name(for: url) { return "`\(name)`" }
  return "`\(url.lastPathComponent)`"
}
