import Foundation
import KuraBase

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
  /// The collation that orders text by ``order(_:_:)``: equal exactly when Swift's `==` says so,
  /// otherwise by the Unicode scalars of the NFC forms (a total order).
  public static let collation = "kura_unicode"
  /// `kura_contains(text, other)`: Swift's `text.contains(other)`; NULL when either is NULL.
  public static let containsFunction = "kura_contains"
  /// `kura_starts_with(text, prefix)`: Swift's `text.starts(with: prefix)`; NULL when either is
  /// NULL.
  public static let startsWithFunction = "kura_starts_with"
  /// `kura_real(value)`: the number a `Double` column holds, for comparing in SQL. A REAL or
  /// INTEGER is itself; the exact BLOB of `-0.0` (`Double.exactSQLiteBlob`) is `0.0`
  /// (equal in Swift too); NaN, which SQL has no value for, and NULL are NULL.
  public static let realFunction = "kura_real"

  /// `kura_int_add(a, b)`, `kura_int_subtract`, `kura_int_multiply`, `kura_int_divide`,
  /// `kura_int_remainder` and `kura_int_neg(a)`: Swift's 64-bit integer arithmetic, NULL where
  /// Swift traps (overflow, division by zero, `Int.min / -1`, `Int.min % -1`), so a row whose
  /// arithmetic traps matches nothing (SQLite itself turns an overflow into a rounded REAL).
  package static let integerFunctionPrefix = "kura_int_"
}

extension Connection {
  /// Registers ``SwiftStringSQL``'s collation and functions on this connection.
  package func installSwiftStringSemantics() throws {
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
    if result == SQLITE_OK {
      result = sqlite3_create_function_v2(
        handle, SwiftStringSQL.realFunction, 1,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil, exactReal, nil, nil, nil)
    }
    for operation in SwiftIntegerFunction.allCases where result == SQLITE_OK {
      result = sqlite3_create_function_v2(
        handle, SwiftStringSQL.integerFunctionPrefix + "\(operation)", 2,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
        UnsafeMutableRawPointer(bitPattern: operation.rawValue), integerFunction, nil, nil, nil)
    }
    if result == SQLITE_OK {
      result = sqlite3_create_function_v2(
        handle, SwiftStringSQL.integerFunctionPrefix + "neg", 1,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil, integerNegate, nil, nil, nil)
    }
    if result != SQLITE_OK { throw SQLiteError(handle: handle, result: result, sql: nil) }
  }
}

/// A binary operation of Swift's 64-bit integer arithmetic, `kura_int_<case name>(a, b)` in SQL;
/// its raw value is the SQL function's user data, which tells `integerFunction` which it is.
private enum SwiftIntegerFunction: Int, CaseIterable {
  case add = 1, subtract, multiply, divide, remainder

  /// The result, or `nil` where Swift traps (overflow; a zero divisor, which the
  /// `ReportingOverflow` operations report as an overflow).
  func result(_ left: Int64, _ right: Int64) -> Int64? {
    let (value, overflow) =
      switch self {
      case .add: left.addingReportingOverflow(right)
      case .subtract: left.subtractingReportingOverflow(right)
      case .multiply: left.multipliedReportingOverflow(by: right)
      case .divide: left.dividedReportingOverflow(by: right)
      case .remainder: left.remainderReportingOverflow(dividingBy: right)
      }
    return overflow ? nil : value
  }
}

/// `kura_int_<operation>(a, b)` on two INTEGER arguments; NULL when either is not an integer or
/// the operation has no result (Swift would trap).
private func integerFunction(
  _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
  guard let left = arguments?[0], let right = arguments?[1],
    sqlite3_value_type(left) == SQLITE_INTEGER, sqlite3_value_type(right) == SQLITE_INTEGER,
    let operation = SwiftIntegerFunction(rawValue: Int(bitPattern: sqlite3_user_data(context))),
    let value = operation.result(sqlite3_value_int64(left), sqlite3_value_int64(right))
  else { return sqlite3_result_null(context) }
  sqlite3_result_int64(context, value)
}

private func integerNegate(
  _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
  guard let operand = arguments?[0], sqlite3_value_type(operand) == SQLITE_INTEGER else {
    return sqlite3_result_null(context)
  }
  let value = sqlite3_value_int64(operand)
  guard value != .min else { return sqlite3_result_null(context) }
  sqlite3_result_int64(context, -value)
}

/// Orders two UTF-8 texts by ``SwiftStringSQL/order(_:_:)``.
private func swiftStringCollation(
  _ context: UnsafeMutableRawPointer?, _ leftCount: Int32, _ left: UnsafeRawPointer?,
  _ rightCount: Int32, _ right: UnsafeRawPointer?
) -> Int32 {
  let leftBytes = UnsafeRawBufferPointer(start: left, count: Int(max(leftCount, 0)))
  let rightBytes = UnsafeRawBufferPointer(start: right, count: Int(max(rightCount, 0)))
  return Int32(SwiftStringSQL.order(utf8: leftBytes, utf8: rightBytes))
}

extension SwiftStringSQL {
  /// The store's total order on text: `-1`, `0` or `1` as `left` sorts before, equal to or after
  /// `right`.
  ///
  /// Two texts are equal exactly when Swift's `==` says so (canonical equivalence); otherwise they
  /// are ordered by the Unicode scalar values of their NFC forms. Swift's own `<` means the same
  /// order, but on some mixes of composed and decomposed text it says neither `a < b` nor `b < a`
  /// for unequal texts; an index needs a total order, so the store uses this one everywhere (SQL
  /// collation, range predicates and sorts in SQL and in memory).
  ///
  /// For example:
  ///
  /// ```swift
  /// SwiftStringSQL.order("e\u{301}", "\u{E9}")   // 0: canonically equivalent
  /// SwiftStringSQL.order("e\u{301}", "\u{E9}a")  // -1
  /// ```
  public static func order(_ left: String, _ right: String) -> Int {
    var left = left
    var right = right
    return left.withUTF8 { leftBytes in
      right.withUTF8 { rightBytes in
        order(utf8: UnsafeRawBufferPointer(leftBytes), utf8: UnsafeRawBufferPointer(rightBytes))
      }
    }
  }

  /// ``order(_:_:)`` for two UTF-8 byte sequences.
  package static func order(utf8 left: UnsafeRawBufferPointer, utf8 right: UnsafeRawBufferPointer)
    -> Int
  {
    // Text already in NFC (recognised for the common scripts) is its own NFC form, and UTF-8
    // byte order is scalar order.
    if isKnownNFC(left) && isKnownNFC(right) {
      return byteOrder(left, right)
    }
    let leftNFC = nfcUTF8(String(decoding: left, as: UTF8.self))
    let rightNFC = nfcUTF8(String(decoding: right, as: UTF8.self))
    return leftNFC.withUnsafeBytes { leftBytes in
      rightNFC.withUnsafeBytes { rightBytes in byteOrder(leftBytes, rightBytes) }
    }
  }
}

/// The UTF-8 bytes of `text`'s NFC form.
///
/// Foundation's `precomposedStringWithCanonicalMapping` on Linux leaves a Hangul LV syllable and
/// a trailing jamo apart (`"\u{AC00}\u{11A8}"`), though Swift's `==` calls them `"\u{AC01}"`; the
/// Hangul compositions (Unicode 3.12) are applied afterwards.
package func nfcUTF8(_ text: String) -> [UInt8] {
  let composed = text.precomposedStringWithCanonicalMapping
  var scalars: [Unicode.Scalar] = []
  scalars.reserveCapacity(composed.unicodeScalars.count)
  for scalar in composed.unicodeScalars {
    if let last = scalars.last {
      let value = scalar.value
      let lastValue = last.value
      if (0x1100...0x1112).contains(lastValue), (0x1161...0x1175).contains(value),
        let syllable = Unicode.Scalar(0xAC00 + ((lastValue - 0x1100) * 21 + value - 0x1161) * 28)
      {
        scalars[scalars.count - 1] = syllable
        continue
      }
      if (0xAC00...0xD7A3).contains(lastValue), (lastValue - 0xAC00) % 28 == 0,
        (0x11A8...0x11C2).contains(value), let syllable = Unicode.Scalar(lastValue + value - 0x11A7)
      {
        scalars[scalars.count - 1] = syllable
        continue
      }
    }
    scalars.append(scalar)
  }
  var bytes: [UInt8] = []
  bytes.reserveCapacity(composed.utf8.count)
  for scalar in scalars { bytes.append(contentsOf: String(scalar).utf8) }
  return bytes
}

/// The lexicographic order of two byte sequences (UTF-8 byte order is scalar order).
private func byteOrder(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
  let common = min(left.count, right.count)
  if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
    let order = memcmp(leftBase, rightBase, common)
    if order != 0 { return order < 0 ? -1 : 1 }
  }
  return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
}

/// Whether the UTF-8 text is certainly in NFC: every scalar is below U+0300 (Latin, where no
/// scalar decomposes or combines) or in a block whose scalars neither decompose nor combine with
/// their neighbours (CJK ideographs and punctuation, kana except the combining sound marks, Hangul
/// syllables, fullwidth forms, emoji). Anything else is normalized before comparing.
private func isKnownNFC(_ bytes: UnsafeRawBufferPointer) -> Bool {
  var index = 0
  let count = bytes.count
  while index < count {
    let lead = bytes[index]
    if lead < 0xCC {
      // ASCII, a continuation byte of this scan's own sequences, or a scalar below U+0300.
      index += lead < 0x80 ? 1 : 2
      continue
    }
    if lead >= 0xE0 && lead < 0xF0 && index + 2 < count {
      let scalar =
        UInt32(lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6
        | UInt32(bytes[index + 2] & 0x3F)
      switch scalar {
      case 0x3000...0x3029, 0x3030...0x3096, 0x309B...0x30FF, 0x4E00...0x9FFF, 0xAC00...0xD7A3,
        0xFF00...0xFFEF:
        index += 3
        continue
      default: return false
      }
    }
    if lead >= 0xF0 && lead < 0xF5 && index + 3 < count {
      let scalar =
        UInt32(lead & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12
        | UInt32(bytes[index + 2] & 0x3F) << 6 | UInt32(bytes[index + 3] & 0x3F)
      guard (0x1F000...0x1FAFF).contains(scalar) else { return false }
      index += 4
      continue
    }
    return false
  }
  return true
}

/// `kura_real(value)`: see ``SwiftStringSQL/realFunction``.
private func exactReal(
  _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
  guard let argument = arguments?[0] else { return sqlite3_result_null(context) }
  switch sqlite3_value_type(argument) {
  case SQLITE_FLOAT, SQLITE_INTEGER: sqlite3_result_value(context, argument)
  case SQLITE_BLOB:
    let count = Int(sqlite3_value_bytes(argument))
    guard count == 8, let bytes = sqlite3_value_blob(argument),
      let value = Double(exactSQLiteBlob: Data(bytes: bytes, count: count)), !value.isNaN
    else { return sqlite3_result_null(context) }
    sqlite3_result_double(context, value)
  default: sqlite3_result_null(context)
  }
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
