import Foundation

#if canImport(CSQLite)
  internal import CSQLite
#else
  internal import SQLite3
#endif

/// SQL names of the functions and the collation that give SQL Swift's `String` semantics.
///
/// Every ``Connection`` registers them when it opens, so translated predicates can compare text
/// exactly as Swift does (Unicode canonical equivalence, `Character`-based `contains`).
///
/// For example:
///
/// ```swift
/// let rows = try connection.query(
///   "SELECT name FROM student ORDER BY name COLLATE \(SwiftStringSQL.collation)"
/// ) { $0.string(at: 0) }
/// ```
public enum SwiftStringSQL {
  /// The collation that orders and compares text like Swift's `String` `<` and `==`.
  public static let collation = "kura_unicode"
  /// `kura_contains(text, other)`: Swift's `text.contains(other)`; NULL when either is NULL.
  public static let containsFunction = "kura_contains"
  /// `kura_starts_with(text, prefix)`: Swift's `text.starts(with: prefix)`; NULL when either is
  /// NULL.
  public static let startsWithFunction = "kura_starts_with"
}

extension Connection {
  /// Registers ``SwiftStringSQL``'s collation and functions on this connection.
  func installSwiftStringSemantics() throws {
    var result = sqlite3_create_collation_v2(
      handle, SwiftStringSQL.collation, SQLITE_UTF8, nil, swiftStringCollation, nil)
    if result == SQLITE_OK {
      result = sqlite3_create_function_v2(
        handle, SwiftStringSQL.containsFunction, 2,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil, swiftStringContains, nil,
        nil, nil)
    }
    if result == SQLITE_OK {
      result = sqlite3_create_function_v2(
        handle, SwiftStringSQL.startsWithFunction, 2,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil, swiftStringStartsWith, nil,
        nil, nil)
    }
    if result != SQLITE_OK { throw SQLiteError(handle: handle, result: result, sql: nil) }
  }
}

/// Orders two UTF-8 texts as Swift's `String` `<` does, equal when Swift's `==` says so.
///
/// Text made only of scalars below U+0300 is already in NFC and has no combining marks, so
/// its UTF-8 byte order is Swift's order; anything else is compared as Swift strings.
private func swiftStringCollation(
  _ context: UnsafeMutableRawPointer?, _ leftCount: Int32, _ left: UnsafeRawPointer?,
  _ rightCount: Int32, _ right: UnsafeRawPointer?
) -> Int32 {
  let leftBytes = UnsafeRawBufferPointer(start: left, count: Int(max(leftCount, 0)))
  let rightBytes = UnsafeRawBufferPointer(start: right, count: Int(max(rightCount, 0)))
  if isBelowCombiningMarks(leftBytes) && isBelowCombiningMarks(rightBytes) {
    let common = min(leftBytes.count, rightBytes.count)
    if common > 0, let left, let right {
      let order = memcmp(left, right, common)
      if order != 0 { return order < 0 ? -1 : 1 }
    }
    return leftBytes.count == rightBytes.count ? 0 : (leftBytes.count < rightBytes.count ? -1 : 1)
  }
  let leftString = String(decoding: leftBytes, as: UTF8.self)
  let rightString = String(decoding: rightBytes, as: UTF8.self)
  if leftString == rightString { return 0 }
  return leftString < rightString ? -1 : 1
}

/// Whether every byte is below 0xCC, the UTF-8 lead byte of U+0300 (the first combining mark).
private func isBelowCombiningMarks(_ bytes: UnsafeRawBufferPointer) -> Bool {
  for byte in bytes where byte >= 0xCC { return false }
  return true
}

/// The text of a function argument, or `nil` for NULL.
private func textArgument(_ value: OpaquePointer?) -> String? {
  guard sqlite3_value_type(value) != SQLITE_NULL, let text = sqlite3_value_text(value) else {
    return nil
  }
  let count = Int(sqlite3_value_bytes(value))
  return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
}

/// `kura_contains(text, other)`, evaluated by Foundation's own predicate expression.
private func swiftStringContains(
  _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
  resultOfTextTest(context, arguments) { text, other in
    PredicateExpressions.CollectionContainsCollection(
      base: PredicateExpressions.Value(text), other: PredicateExpressions.Value(other)
    )
  }
}

/// `kura_starts_with(text, prefix)`, evaluated by Foundation's own predicate expression.
private func swiftStringStartsWith(
  _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
  resultOfTextTest(context, arguments) { text, prefix in
    PredicateExpressions.SequenceStartsWith(
      base: PredicateExpressions.Value(text), prefix: PredicateExpressions.Value(prefix))
  }
}

/// Sets the result of a two-text SQL function to Foundation's evaluation of the expression
/// `make` builds (1 or 0), or to NULL when either argument is NULL.
private func resultOfTextTest<Expression: StandardPredicateExpression<Bool>>(
  _ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?,
  _ make: (String, String) -> Expression
) {
  guard let arguments, let first = textArgument(arguments[0]),
    let second = textArgument(arguments[1])
  else {
    sqlite3_result_null(context)
    return
  }
  let expression = make(first, second)
  sqlite3_result_int(context, (try? expression.evaluate(PredicateBindings())) == true ? 1 : 0)
}
