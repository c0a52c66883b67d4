import Foundation
import KuraBase
import KuraSQLite

/// How a key's values convert to and from stored ``PreferenceValue``s (chosen by the key's
/// initializer from its value type). Implemented by caseless enums so that a key holds only a
/// metatype: building a key costs no allocation.
@usableFromInline
package protocol PreferenceCoding<Value>: SendableMetatype {
  associatedtype Value: Sendable
  /// The stored value, or `nil` when the value is `nil` (the key is then removed).
  static func encode(_ value: Value) throws -> PreferenceValue?
  /// The value, or `nil` when the stored value is not of this type.
  static func decode(_ value: PreferenceValue) -> Value?
  /// Whether decoding is costly enough that decoded values should be cached.
  static var cachesDecodedValues: Bool { get }
}

package enum RepresentableCoding<Value: PreferenceRepresentable>: PreferenceCoding {
  package static func encode(_ value: Value) -> PreferenceValue? { value.preferenceValue }
  @inline(__always)
  package static func decode(_ value: PreferenceValue) -> Value? { Value(preferenceValue: value) }
  package static var cachesDecodedValues: Bool { false }
}

package enum RawValueCoding<Value: RawRepresentable & Sendable>: PreferenceCoding
where Value.RawValue: PreferenceRepresentable {
  package static func encode(_ value: Value) -> PreferenceValue? { value.rawValue.preferenceValue }
  package static func decode(_ value: PreferenceValue) -> Value? {
    Value.RawValue(preferenceValue: value).flatMap(Value.init(rawValue:))
  }
  package static var cachesDecodedValues: Bool { false }
}

/// Any Codable value, kept as the PreferenceValue tree of its JSON form (so tools can read it).
/// Dates and bytes inside the value pass through JSON as marked strings and are stored as
/// ``PreferenceValue/date(_:)`` and ``PreferenceValue/data(_:)``, so they keep their type.
package enum CodableCoding<Value: Codable & Sendable>: PreferenceCoding {
  package static func encode(_ value: Value) throws -> PreferenceValue? {
    let data = try CodableBridge.encoder().encode(value)
    if data.elementsEqual("null".utf8) { return nil }
    return CodableBridge.unmark(try JSONDecoder().decode(PreferenceValue.self, from: data))
  }

  package static func decode(_ value: PreferenceValue) -> Value? {
    guard let data = try? CodableBridge.encoder().encode(value) else { return nil }
    return try? CodableBridge.decoder().decode(Value.self, from: data)
  }

  package static var cachesDecodedValues: Bool { true }
}

/// The JSON settings shared by both directions of ``CodableCoding``.
package enum CodableBridge {
  package static let dateMark = "\u{1}kura-date:"
  package static let dataMark = "\u{1}kura-data:"

  package static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(dateMark + String(date.timeIntervalSince1970))
    }
    encoder.dataEncodingStrategy = .custom { data, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(dataMark + data.base64EncodedString())
    }
    return encoder
  }

  package static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      if let seconds = try? container.decode(Double.self) {
        return Date(timeIntervalSinceReferenceDate: seconds)
      }
      let text = try container.decode(String.self)
      guard text.hasPrefix(dateMark), let seconds = Double(text.dropFirst(dateMark.count)) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a date")
      }
      return Date(timeIntervalSince1970: seconds)
    }
    decoder.dataDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      let text = try container.decode(String.self)
      let base64 = text.hasPrefix(dataMark) ? String(text.dropFirst(dataMark.count)) : text
      guard let data = Data(base64Encoded: base64) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not base64")
      }
      return data
    }
    return decoder
  }

  /// Turns marked strings back into dates and bytes.
  package static func unmark(_ value: PreferenceValue) -> PreferenceValue {
    switch value {
    case .string(let text) where text.hasPrefix(dateMark):
      guard let seconds = Double(text.dropFirst(dateMark.count)) else { return value }
      return .date(Date(timeIntervalSince1970: seconds))
    case .string(let text) where text.hasPrefix(dataMark):
      guard let data = Data(base64Encoded: String(text.dropFirst(dataMark.count))) else {
        return value
      }
      return .data(data)
    case .array(let values): return .array(values.map(unmark))
    case .dictionary(let values): return .dictionary(values.mapValues(unmark))
    default: return value
    }
  }
}

/// An optional value: `nil` removes the key.
package enum OptionalCoding<Wrapped: PreferenceCoding>: PreferenceCoding {
  package typealias Value = Wrapped.Value?
  package static func encode(_ value: Wrapped.Value?) throws -> PreferenceValue? {
    guard let value else { return nil }
    return try Wrapped.encode(value)
  }
  package static func decode(_ value: PreferenceValue) -> Wrapped.Value?? {
    guard let decoded = Wrapped.decode(value) else { return nil }
    return .some(decoded)
  }
  package static var cachesDecodedValues: Bool { Wrapped.cachesDecodedValues }
}
