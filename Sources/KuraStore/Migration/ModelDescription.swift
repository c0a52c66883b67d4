import Foundation
import KuraBase
import KuraSQLite

/// A model's table described as data (for tools that migrate a store without its model types,
/// such as `kura store migrate`): the shape `kura store schema --json` prints, plus a default
/// value or an earlier name per column.
///
/// For example (JSON):
///
/// ```json
/// {"model": "Trip", "table": "Trip", "columns": [
///   {"name": "id", "kind": "uuid", "nullable": false, "primaryKey": true},
///   {"name": "title", "kind": "text", "nullable": false, "renamedFrom": "name"},
///   {"name": "rating", "kind": "integer", "nullable": false, "default": 3}]}
/// ```
public struct ModelDescription: Codable, Sendable, Equatable {
  /// One column.
  ///
  /// For example: `{"name": "rating", "kind": "integer", "nullable": false, "default": 3}`.
  public struct Column: Codable, Sendable, Equatable {
    /// The column (property) name.
    public var name: String
    /// How values are stored: `integer`, `real`, `text`, `blob`, `bool`, `date`, `uuid`, `url`
    /// or `json`.
    public var kind: String
    /// Whether the column may be NULL (an optional property).
    public var nullable: Bool
    /// Whether it is the primary key (the `id` column).
    public var primaryKey: Bool?
    /// The value existing rows get when the column is added (a JSON number, string or bool).
    public var `default`: DefaultValue?
    /// The column's earlier name, when it is renamed.
    public var renamedFrom: String?

    /// Describes a column.
    ///
    /// For example: `ModelDescription.Column(name: "rating", kind: "integer", nullable: true)`.
    ///
    /// - Parameters:
    ///   - name: The column name.
    ///   - kind: How values are stored.
    ///   - nullable: Whether it may be NULL.
    ///   - primaryKey: Whether it is the primary key.
    ///   - default: The value existing rows get.
    ///   - renamedFrom: The earlier name.
    public init(
      name: String, kind: String, nullable: Bool, primaryKey: Bool? = nil,
      default: DefaultValue? = nil, renamedFrom: String? = nil
    ) {
      self.name = name
      self.kind = kind
      self.nullable = nullable
      self.primaryKey = primaryKey
      self.default = `default`
      self.renamedFrom = renamedFrom
    }
  }

  /// A default value in JSON: a number, a string or a bool.
  ///
  /// For example: `"default": 3`, `"default": "none"` or `"default": false`.
  public enum DefaultValue: Codable, Sendable, Equatable {
    /// A whole number, such as `3`.
    case integer(Int64)
    /// A number with a fraction, such as `1.5`.
    case real(Double)
    /// A string, such as `"none"`.
    case text(String)
    /// A bool (stored as 0 or 1).
    case bool(Bool)

    /// Decodes a JSON number, string or bool.
    ///
    /// For example: `try JSONDecoder().decode(ModelDescription.DefaultValue.self, from: data)`.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for another JSON value.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let bool = try? container.decode(Bool.self) {
        self = .bool(bool)
      } else if let integer = try? container.decode(Int64.self) {
        self = .integer(integer)
      } else if let real = try? container.decode(Double.self) {
        self = .real(real)
      } else {
        self = .text(try container.decode(String.self))
      }
    }

    /// Encodes the value as JSON.
    ///
    /// For example: `try JSONEncoder().encode(ModelDescription.DefaultValue.integer(3))`.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .integer(let value): try container.encode(value)
      case .real(let value): try container.encode(value)
      case .text(let value): try container.encode(value)
      case .bool(let value): try container.encode(value)
      }
    }

    package var databaseValue: DatabaseValue {
      switch self {
      case .integer(let value): return .integer(value)
      case .real(let value): return .real(value)
      case .text(let value): return .text(value)
      case .bool(let value): return .integer(value ? 1 : 0)
      }
    }
  }

  /// The model's name, such as `Trip`.
  public var model: String
  /// Its table; the model's name when missing.
  public var table: String?
  /// Its columns, in order.
  public var columns: [Column]

  /// Describes a model's table.
  ///
  /// For example: `ModelDescription(model: "Trip", columns: [idColumn, nameColumn])`.
  ///
  /// - Parameters:
  ///   - model: The model's name.
  ///   - table: Its table (the model's name by default).
  ///   - columns: Its columns.
  public init(model: String, table: String? = nil, columns: [Column]) {
    self.model = model
    self.table = table
    self.columns = columns
  }
}
