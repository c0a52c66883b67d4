import Foundation
import KuraBase
import KuraSQLite

/// One column of a model's table: the stored property it holds and how.
// Safety: AnyKeyPath and metatypes are immutable values; they are only compared and applied.
package struct ColumnSchema: @unchecked Sendable, Hashable {
  /// The column name, which is the property name.
  package let name: String
  /// The property's key path from the model type.
  package let keyPath: AnyKeyPath
  /// How values are stored.
  package let kind: ColumnKind
  /// Whether the property is optional (the column allows NULL).
  package let isOptional: Bool
  /// The property's static type (the wrapped type for optionals).
  package let valueType: Any.Type

  package init(
    name: String, keyPath: AnyKeyPath, kind: ColumnKind, isOptional: Bool,
    valueType: Any.Type = Any.self
  ) {
    self.name = name
    self.keyPath = keyPath
    self.kind = kind
    self.isOptional = isOptional
    self.valueType = valueType
  }

  package static func == (lhs: ColumnSchema, rhs: ColumnSchema) -> Bool {
    lhs.name == rhs.name && lhs.keyPath == rhs.keyPath && lhs.kind == rhs.kind
      && lhs.isOptional == rhs.isOptional
  }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(keyPath)
  }
}

/// Quotes an SQL identifier: `name` becomes `"name"`, doubling embedded quotes.
package func quoteIdentifier(_ name: String) -> String {
  // Foundation's `replacingOccurrences` bridges through NSString: a pull writing each row's
  // SQL spent a quarter of its time here. A name without `"` (nearly all) is only wrapped.
  guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
  // By scalar, not by character: a `"` followed by a combining mark is one character, and
  // its quote must still be doubled.
  var quoted = String.UnicodeScalarView()
  quoted.append("\"")
  for scalar in name.unicodeScalars {
    quoted.append(scalar)
    if scalar == "\"" { quoted.append("\"") }
  }
  quoted.append("\"")
  return String(quoted)
}
