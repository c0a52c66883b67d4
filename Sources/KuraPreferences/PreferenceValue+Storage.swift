import Foundation
import KuraBase
import KuraSQLite

// How a PreferenceValue is kept in a suite's SQLite file: a `type` column naming its type and a
// `value` column in the matching SQLite storage class. Arrays and dictionaries are kept as a
// tagged JSON text (`{"s":"text"}`, `{"i":3}`, `{"t":1700000000.5}` …) so that nested dates,
// bytes and whole numbers read back exactly.
extension PreferenceValue {
  /// The `type` and `value` columns for this value.
  package func storageColumns() throws -> (type: String, value: DatabaseValue) {
    switch self {
    case .string(let value): return ("string", .text(value))
    case .integer(let value): return ("integer", .integer(value))
    case .double(let value): return ("double", value.isNaN ? .null : .real(value))
    case .bool(let value): return ("bool", .integer(value ? 1 : 0))
    case .date(let value): return ("date", .real(value.timeIntervalSince1970))
    case .data(let value): return ("data", .blob(value))
    case .array, .dictionary:
      let data = try Self.taggedEncoder.encode(TaggedPreferenceValue(self))
      return (typeName, .text(String(decoding: data, as: UTF8.self)))
    }
  }

  /// Every `type` column value this version writes and reads.
  package static let storedTypeNames: Set<String> = [
    "string", "integer", "double", "bool", "date", "data", "array", "dictionary",
  ]

  /// Reads a value back from its columns; `nil` when they don't hold a value of the named type.
  package init?(type: String, storage: DatabaseValue) {
    switch (type, storage) {
    case ("string", .text(let value)): self = .string(value)
    case ("integer", .integer(let value)): self = .integer(value)
    case ("double", .real(let value)): self = .double(value)
    case ("double", .integer(let value)): self = .double(Double(value))
    case ("double", .null): self = .double(.nan)
    case ("bool", .integer(let value)): self = .bool(value != 0)
    case ("date", .real(let value)): self = .date(Date(timeIntervalSince1970: value))
    case ("date", .integer(let value)): self = .date(Date(timeIntervalSince1970: Double(value)))
    case ("data", .blob(let value)): self = .data(value)
    case ("array", .text(let text)), ("dictionary", .text(let text)):
      guard
        let tagged = try? Self.taggedDecoder.decode(
          TaggedPreferenceValue.self, from: Data(text.utf8))
      else { return nil }
      self = tagged.value
    default: return nil
    }
  }

  package static var taggedEncoder: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return encoder
  }

  package static var taggedDecoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return decoder
  }
}

/// A PreferenceValue encoded with its type: a one-entry object whose key names the type.
package struct TaggedPreferenceValue: Codable {
  package var value: PreferenceValue

  package init(_ value: PreferenceValue) { self.value = value }

  private enum Tag: String, CodingKey {
    case s, i, d, b, t, x, a, o
  }

  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Tag.self)
    guard let tag = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "untagged preference value"))
    }
    switch tag {
    case .s: value = .string(try container.decode(String.self, forKey: tag))
    case .i: value = .integer(try container.decode(Int64.self, forKey: tag))
    case .d: value = .double(try container.decode(Double.self, forKey: tag))
    case .b: value = .bool(try container.decode(Bool.self, forKey: tag))
    case .t:
      value = .date(Date(timeIntervalSince1970: try container.decode(Double.self, forKey: tag)))
    case .x:
      let text = try container.decode(String.self, forKey: tag)
      guard let data = Data(base64Encoded: text) else {
        throw DecodingError.dataCorruptedError(
          forKey: tag, in: container, debugDescription: "not base64")
      }
      value = .data(data)
    case .a:
      value = .array(try container.decode([TaggedPreferenceValue].self, forKey: tag).map(\.value))
    case .o:
      value = .dictionary(
        try container.decode([String: TaggedPreferenceValue].self, forKey: tag).mapValues(\.value))
    }
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Tag.self)
    switch value {
    case .string(let value): try container.encode(value, forKey: .s)
    case .integer(let value): try container.encode(value, forKey: .i)
    case .double(let value): try container.encode(value, forKey: .d)
    case .bool(let value): try container.encode(value, forKey: .b)
    case .date(let value): try container.encode(value.timeIntervalSince1970, forKey: .t)
    case .data(let value): try container.encode(value.base64EncodedString(), forKey: .x)
    case .array(let values):
      try container.encode(values.map(TaggedPreferenceValue.init), forKey: .a)
    case .dictionary(let values):
      try container.encode(values.mapValues(TaggedPreferenceValue.init), forKey: .o)
    }
  }
}
