import Foundation

/// The parts of SQL that differ between database engines, for the predicate translator.
///
/// The translator builds every statement through a dialect, so a second engine (PostgreSQL) is a
/// second conformance, not a change to the translator or the model context. A dialect returns
/// `nil` for an operation it cannot express with Swift's exact semantics; the translator then
/// evaluates that part in memory.
protocol SQLDialect: Sendable {
  /// `name` as a quoted identifier, such as `"first name"`.
  func quoteIdentifier(_ name: String) -> String
  /// The text of parameter number `index` (from 1), such as `?` or `$1`.
  func placeholder(_ index: Int) -> String
  /// `text` with the LIKE wildcards and the escape character escaped, for dialects that match
  /// text with LIKE; used with ``likeEscapeClause``.
  func escapeLikePattern(_ text: String) -> String
  /// The clause that declares the escape character of ``escapeLikePattern(_:)``.
  var likeEscapeClause: String { get }
  /// The literal for `value` in a boolean position.
  func booleanLiteral(_ value: Bool) -> String
  /// The collation clause that makes text compare like Swift's `String` (` COLLATE …`), or `nil`
  /// when the engine has none (text comparisons then run in memory).
  var swiftStringCollation: String? { get }
  /// SQL for Swift's `text.contains(other)` on two text expressions, or `nil`.
  func stringContains(_ text: String, _ other: String) -> String?
  /// SQL for Swift's `text.starts(with: prefix)` on two text expressions, or `nil`.
  func stringStartsWith(_ text: String, _ prefix: String) -> String?
  /// A subquery listing the values of a JSON array bound to `parameter` (one parameter however
  /// many values, for large `IN` lists), or `nil` when the engine has none.
  func jsonArrayValues(_ parameter: String) -> String?
}

extension SQLDialect {
  /// No JSON table function: large `IN` lists run in memory.
  func jsonArrayValues(_ parameter: String) -> String? { nil }
}
