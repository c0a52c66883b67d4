import Foundation
import KuraBase
import KuraSQLite

extension StoreInspector {
  /// One value of a dumped row, typed by the column's recorded kind.
  ///
  /// For example: `if case .text(let name) = row["student"] { print(name) }`.
  public enum Value: Sendable, Equatable, Encodable, CustomStringConvertible {
    /// NULL.
    case null
    /// An integer.
    case integer(Int64)
    /// A number.
    case real(Double)
    /// A Bool column.
    case bool(Bool)
    /// Text: strings, UUIDs, URLs, and dates as ISO 8601.
    case text(String)
    /// A JSON column's value, as JSON text.
    case json(String)
    /// Bytes.
    case blob(Data)

    /// The value as `kura store dump` prints it.
    ///
    /// For example: `print(StoreInspector.Value.integer(3))   // 3`.
    public var description: String {
      switch self {
      case .null: return "NULL"
      case .integer(let value): return String(value)
      case .real(let value): return String(value)
      case .bool(let value): return String(value)
      case .text(let value): return value
      case .json(let value): return value
      case .blob(let value): return "x'" + value.map { String(format: "%02x", $0) }.joined() + "'"
      }
    }

    /// Encodes as the matching JSON value (blobs as base64, JSON columns embedded).
    ///
    /// For example: `try JSONEncoder().encode([StoreInspector.Value.bool(true)])`.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .null: try container.encodeNil()
      case .integer(let value): try container.encode(value)
      case .real(let value): try container.encode(value)
      case .bool(let value): try container.encode(value)
      case .text(let value): try container.encode(value)
      case .json(let value):
        let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(value.utf8))
        if let decoded { try container.encode(decoded) } else { try container.encode(value) }
      case .blob(let value): try container.encode(value.base64EncodedString())
      }
    }
  }

  /// The rows of a model's table, in primary-key order, as column names and typed values.
  ///
  /// For example:
  ///
  /// ```swift
  /// let (columns, rows) = try inspector.dump(model: "Student")
  /// ```
  ///
  /// - Parameter model: The model type's name (or its table's name).
  /// - Returns: The column names and, per row, one value per column.
  /// - Throws: ``StoreError/Code/modelNotInContainer`` when the store has no such model.
  public func dump(model: String) throws -> (columns: [String], rows: [[Value]]) {
    try run {
      let models = try models()
      guard let found = models.first(where: { $0.name == model || $0.table == model }) else {
        let names = models.map { "`\($0.name)`" }.joined(separator: ", ")
        throw StoreError(
          .modelNotInContainer, model: model, url: url,
          message:
            "Can't dump `\(model)`: the store has no such model. Its models: "
            + (names.isEmpty ? "none" : names) + ".")
      }
      // The table's columns as the engine reports them: without an engine's hidden ones.
      let names = try connection.tableColumns(found.table).map { quoteIdentifier($0.name) }
      let statement = try connection.prepare(
        "SELECT \(names.isEmpty ? "*" : names.joined(separator: ", ")) FROM "
          + "\(quoteIdentifier(found.table)) ORDER BY 1")
      let columns = (0..<statement.columnCount).map { statement.columnName(at: $0) }
      let kinds = columns.map { found.kinds[$0].flatMap(ColumnKind.init(rawValue:)) }
      var rows: [[Value]] = []
      while try statement.step() {
        rows.append(
          columns.indices.map { index in Self.value(statement.value(at: index), kind: kinds[index])
          }
        )
      }
      return (columns, rows)
    }
  }

  package static func value(_ value: DatabaseValue, kind: ColumnKind?) -> Value {
    switch (value, kind) {
    case (.null, _): return .null
    case (.integer(let number), .bool?): return .bool(number != 0)
    case (.integer(let number), .date?): return .text(isoDate(Double(number)))
    case (.real(let number), .date?): return .text(isoDate(number))
    case (.text(let text), .json?): return .json(text)
    case (.integer(let number), _): return .integer(number)
    case (.real(let number), _): return .real(number)
    case (.text(let text), _): return .text(text)
    case (.blob(let data), _): return .blob(data)
    }
  }

  package static func isoDate(_ seconds: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
  }
}

/// Any JSON value, to embed a JSON column's text in JSON output.
package enum JSONValue: Codable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  package init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}
