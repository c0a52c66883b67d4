import Foundation
import KuraBase
import KuraSQLite

/// One condition of a filter on a model's rows read without its Swift type (`kura studio`'s
/// filter builder): a property, an operator and the value as typed.
///
/// ``predicate(for:)`` makes it a `Predicate<BrowsedRow>` whose key path has the property's Swift
/// type, so the store's own translation gives it exactly the SQL (and the in-memory parts) a
/// `#Predicate` on the model would get: text compares like Swift's `String`, `nil` is not a
/// value, NaN is no number.
package struct RowFilter: Sendable, Hashable, Codable {
  /// How the property is compared with the value.
  package enum Operator: String, Sendable, Hashable, Codable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case contains = "contains"
    case startsWith = "starts with"
    case isNil = "is nil"
    case isNotNil = "is not nil"

    /// Whether the operator takes a value.
    package var takesValue: Bool { self != .isNil && self != .isNotNil }
  }

  /// The property (column) name.
  package var property: String
  /// The operator.
  package var op: Operator
  /// The value as typed; ignored by ``Operator/isNil`` and ``Operator/isNotNil``.
  package var value: String

  package init(property: String, op: Operator, value: String = "") {
    self.property = property
    self.op = op
    self.value = value
  }

  private enum CodingKeys: String, CodingKey { case property, op, value }

  /// Reads `{"property": …, "op": …, "value": …}`; the value may be left out (`is nil`).
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    property = try container.decode(String.self, forKey: .property)
    op = try container.decode(Operator.self, forKey: .op)
    value = try container.decodeIfPresent(String.self, forKey: .value) ?? ""
  }

  /// The condition as a predicate on the model's rows, as Swift code would write it.
  ///
  /// - Throws: ``StoreError/Code/unsupportedQuery`` naming the property when the value can't be
  ///   read as the property's type (a malformed date), the operator does not apply to it, or the
  ///   model has no such property.
  package func predicate(for model: BrowsedModel) throws -> Predicate<BrowsedRow> {
    guard let column = model.columns.first(where: { $0.name == property }) else {
      throw refusal(
        model,
        "`\(model.name)` has no property `\(property)`. Its properties: "
          + model.columns.map { "`\($0.name)`" }.joined(separator: ", ") + ".")
    }
    let name = column.name
    if op == .isNil || op == .isNotNil {
      guard column.isOptional else {
        throw refusal(
          model, "`\(name)` is not optional, so it is never nil: choose another operator.")
      }
    }
    switch column.storedKind {
    case .integer:
      return try ordered(
        model, column, \BrowsedRow[integer: name], \BrowsedRow[optionalInteger: name]
      ) { Int64($0.trimmingCharacters(in: .whitespaces)) }
    case .real:
      return try ordered(
        model, column, \BrowsedRow[real: name], \BrowsedRow[optionalReal: name]
      ) { Double($0.trimmingCharacters(in: .whitespaces)) }
    case .date:
      return try ordered(
        model, column, \BrowsedRow[date: name], \BrowsedRow[optionalDate: name],
        parse: RowFilter.date)
    case .uuid:
      return try ordered(
        model, column, \BrowsedRow[uuid: name], \BrowsedRow[optionalUUID: name]
      ) { UUID(uuidString: $0.trimmingCharacters(in: .whitespaces)) }
    case .text:
      if op == .contains || op == .startsWith {
        return column.isOptional
          ? Self.optionalText(\BrowsedRow[optionalText: name], startsWith: op == .startsWith, value)
          : Self.text(\BrowsedRow[text: name], startsWith: op == .startsWith, value)
      }
      return try ordered(
        model, column, \BrowsedRow[text: name], \BrowsedRow[optionalText: name]
      ) { $0 }
    case .bool:
      return try equatable(
        model, column, \BrowsedRow[bool: name], \BrowsedRow[optionalBool: name]
      ) { ["true": true, "false": false][$0.trimmingCharacters(in: .whitespaces).lowercased()] }
    case .url:
      return try equatable(
        model, column, \BrowsedRow[url: name], \BrowsedRow[optionalURL: name]
      ) { URL(string: $0) }
    case .blob:
      return try equatable(
        model, column, \BrowsedRow[data: name], \BrowsedRow[optionalData: name],
        parse: RowFilter.hex)
    case .json:
      return try equatable(
        model, column, \BrowsedRow[json: name], \BrowsedRow[optionalJSON: name]
      ) { $0 }
    }
  }

  /// What a value of each kind looks like, for messages.
  private static func example(_ kind: ColumnKind) -> String {
    switch kind {
    case .integer: return "a whole number such as 42"
    case .real: return "a number such as 2.5"
    case .date: return "an ISO 8601 date such as 2026-12-06 or 2026-12-06T10:15:00Z"
    case .uuid: return "a UUID such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
    case .bool: return "true or false"
    case .url: return "a URL such as https://example.com"
    case .blob: return "bytes in hexadecimal such as 00ff"
    case .text, .json: return "text"
    }
  }

  private func refusal(_ model: BrowsedModel, _ why: String) -> StoreError {
    StoreError(
      .unsupportedQuery, model: model.name, property: property,
      message: "Can't filter `\(model.name)` by `\(property)`: \(why)")
  }

  /// A predicate on a property whose type is `Comparable`.
  private func ordered<Value: Comparable & Codable & Sendable>(
    _ model: BrowsedModel, _ column: BrowsedModel.Column,
    _ plain: KeyPath<BrowsedRow, Value> & Sendable,
    _ optional: KeyPath<BrowsedRow, Value?> & Sendable, parse: (String) -> Value?
  ) throws -> Predicate<BrowsedRow> {
    if let comparison = comparisonOperator {
      let parsed = try parsedValue(model, column, parse)
      return column.isOptional
        ? Self.optionalOrdering(optional, comparison, parsed)
        : Self.ordering(plain, comparison, parsed)
    }
    return try equatable(model, column, plain, optional, parse: parse)
  }

  /// A predicate on a property whose type is only `Equatable`.
  private func equatable<Value: Equatable & Codable & Sendable>(
    _ model: BrowsedModel, _ column: BrowsedModel.Column,
    _ plain: KeyPath<BrowsedRow, Value> & Sendable,
    _ optional: KeyPath<BrowsedRow, Value?> & Sendable, parse: (String) -> Value?
  ) throws -> Predicate<BrowsedRow> {
    switch op {
    case .isNil, .isNotNil:
      return Self.nilTest(optional, isNil: op == .isNil)
    case .equal, .notEqual:
      let parsed = try parsedValue(model, column, parse)
      return column.isOptional
        ? Self.equality(optional, negated: op == .notEqual, Optional(parsed))
        : Self.equality(plain, negated: op == .notEqual, parsed)
    default:
      throw refusal(
        model,
        "`\(op.rawValue)` does not apply to a \(column.kind) property; use "
          + (column.storedKind == .text
            ? "==, !=, <, <=, >, >=, contains or starts with." : "== or !="))
    }
  }

  private func parsedValue<Value>(
    _ model: BrowsedModel, _ column: BrowsedModel.Column, _ parse: (String) -> Value?
  ) throws -> Value {
    guard let parsed = parse(value) else {
      throw refusal(
        model,
        "`\(value)` is not a valid \(column.kind) value; give "
          + "\(Self.example(column.storedKind)).")
    }
    return parsed
  }

  private var comparisonOperator: PredicateExpressions.ComparisonOperator? {
    switch op {
    case .less: return .lessThan
    case .lessOrEqual: return .lessThanOrEqual
    case .greater: return .greaterThan
    case .greaterOrEqual: return .greaterThanOrEqual
    default: return nil
    }
  }

  // The predicates, as `#Predicate` writes them.

  /// `$0.p == value` (or `!=`).
  private static func equality<Value: Equatable & Codable & Sendable>(
    _ keyPath: KeyPath<BrowsedRow, Value> & Sendable, negated: Bool, _ value: Value
  ) -> Predicate<BrowsedRow> {
    Predicate<BrowsedRow> { row in
      let property = PredicateExpressions.build_KeyPath(root: row, keyPath: keyPath)
      let constant = PredicateExpressions.build_Arg(value)
      if negated {
        return PredicateExpressions.build_NotEqual(lhs: property, rhs: constant)
      }
      return PredicateExpressions.build_Equal(lhs: property, rhs: constant)
    }
  }

  /// `$0.p < value` (or another comparison).
  private static func ordering<Value: Comparable & Codable & Sendable>(
    _ keyPath: KeyPath<BrowsedRow, Value> & Sendable,
    _ op: PredicateExpressions.ComparisonOperator, _ value: Value
  ) -> Predicate<BrowsedRow> {
    Predicate<BrowsedRow> { row in
      PredicateExpressions.build_Comparison(
        lhs: PredicateExpressions.build_KeyPath(root: row, keyPath: keyPath),
        rhs: PredicateExpressions.build_Arg(value), op: op)
    }
  }

  /// `($0.p.flatMap { $0 < value }) ?? false`: an optional property compared where it is not
  /// `nil` (Swift has no `<` between an optional and a value).
  private static func optionalOrdering<Value: Comparable & Codable & Sendable>(
    _ keyPath: KeyPath<BrowsedRow, Value?> & Sendable,
    _ op: PredicateExpressions.ComparisonOperator, _ value: Value
  ) -> Predicate<BrowsedRow> {
    Predicate<BrowsedRow> { row in
      PredicateExpressions.build_NilCoalesce(
        lhs: PredicateExpressions.build_flatMap(
          PredicateExpressions.build_KeyPath(root: row, keyPath: keyPath)
        ) { unwrapped in
          PredicateExpressions.build_Comparison(
            lhs: unwrapped, rhs: PredicateExpressions.build_Arg(value), op: op)
        },
        rhs: PredicateExpressions.build_Arg(false))
    }
  }

  /// `$0.p == nil` (or `!= nil`).
  private static func nilTest<Value: Equatable & Codable & Sendable>(
    _ keyPath: KeyPath<BrowsedRow, Value?> & Sendable, isNil: Bool
  ) -> Predicate<BrowsedRow> {
    Predicate<BrowsedRow> { row in
      let property = PredicateExpressions.build_KeyPath(root: row, keyPath: keyPath)
      let none = PredicateExpressions.build_NilLiteral() as PredicateExpressions.NilLiteral<Value>
      if isNil { return PredicateExpressions.build_Equal(lhs: property, rhs: none) }
      return PredicateExpressions.build_NotEqual(lhs: property, rhs: none)
    }
  }

  /// `$0.p.contains(value)` (or `starts(with:)`).
  private static func text(
    _ keyPath: KeyPath<BrowsedRow, String> & Sendable, startsWith: Bool, _ value: String
  ) -> Predicate<BrowsedRow> {
    Predicate<BrowsedRow> { row in
      let property = PredicateExpressions.build_KeyPath(root: row, keyPath: keyPath)
      if startsWith {
        return PredicateExpressions.build_starts(
          property, with: PredicateExpressions.build_Arg(value))
      }
      return PredicateExpressions.build_contains(property, PredicateExpressions.build_Arg(value))
    }
  }

  /// `($0.p.flatMap { $0.contains(value) }) ?? false` (or `starts(with:)`).
  private static func optionalText(
    _ keyPath: KeyPath<BrowsedRow, String?> & Sendable, startsWith: Bool, _ value: String
  ) -> Predicate<BrowsedRow> {
    Predicate<BrowsedRow> { row in
      let property = PredicateExpressions.build_KeyPath(root: row, keyPath: keyPath)
      if startsWith {
        return PredicateExpressions.build_NilCoalesce(
          lhs: PredicateExpressions.build_flatMap(property) { unwrapped in
            PredicateExpressions.build_starts(
              unwrapped, with: PredicateExpressions.build_Arg(value))
          },
          rhs: PredicateExpressions.build_Arg(false))
      }
      return PredicateExpressions.build_NilCoalesce(
        lhs: PredicateExpressions.build_flatMap(property) { unwrapped in
          PredicateExpressions.build_contains(unwrapped, PredicateExpressions.build_Arg(value))
        },
        rhs: PredicateExpressions.build_Arg(false))
    }
  }

  /// A date as typed: ISO 8601 with a time (and optional fractional seconds), or a day (midnight
  /// UTC).
  package static func date(_ text: String) -> Date? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let formatter = ISO8601DateFormatter()
    for options: ISO8601DateFormatter.Options in [
      [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate],
    ] {
      formatter.formatOptions = options
      if let date = formatter.date(from: trimmed) { return date }
    }
    return nil
  }

  /// Bytes as typed in hexadecimal (`00ff`, `x'00ff'`).
  package static func hex(_ text: String) -> Data? {
    var digits = Substring(text.trimmingCharacters(in: .whitespaces).lowercased())
    if digits.hasPrefix("x'") && digits.hasSuffix("'") && digits.count >= 3 {
      digits = digits.dropFirst(2).dropLast()
    }
    guard digits.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
      let next = digits.index(index, offsetBy: 2)
      guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
      bytes.append(byte)
      index = next
    }
    return Data(bytes)
  }
}
