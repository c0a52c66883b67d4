import Foundation

/// How a key's values convert to and from stored ``PreferenceValue``s (chosen by the key's
/// initializer from its value type). Implemented by caseless enums so that a key holds only a
/// metatype: building a key costs no allocation.
@usableFromInline
protocol PreferenceCoding<Value>: SendableMetatype {
  associatedtype Value: Sendable
  /// The stored value, or `nil` when the value is `nil` (the key is then removed).
  static func encode(_ value: Value) throws -> PreferenceValue?
  /// The value, or `nil` when the stored value is not of this type.
  static func decode(_ value: PreferenceValue) -> Value?
  /// Whether decoding is costly enough that decoded values should be cached.
  static var cachesDecodedValues: Bool { get }
}

enum RepresentableCoding<Value: PreferenceRepresentable>: PreferenceCoding {
  static func encode(_ value: Value) -> PreferenceValue? { value.preferenceValue }
  @inline(__always)
  static func decode(_ value: PreferenceValue) -> Value? { Value(preferenceValue: value) }
  static var cachesDecodedValues: Bool { false }
}

enum RawValueCoding<Value: RawRepresentable & Sendable>: PreferenceCoding
where Value.RawValue: PreferenceRepresentable {
  static func encode(_ value: Value) -> PreferenceValue? { value.rawValue.preferenceValue }
  static func decode(_ value: PreferenceValue) -> Value? {
    Value.RawValue(preferenceValue: value).flatMap(Value.init(rawValue:))
  }
  static var cachesDecodedValues: Bool { false }
}

/// Any Codable value, kept as the PreferenceValue tree of its JSON form (so tools can read it).
enum CodableCoding<Value: Codable & Sendable>: PreferenceCoding {
  static func encode(_ value: Value) throws -> PreferenceValue? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(value)
    if data.elementsEqual("null".utf8) { return nil }
    return try JSONDecoder().decode(PreferenceValue.self, from: data)
  }

  static func decode(_ value: PreferenceValue) -> Value? {
    guard let data = try? JSONEncoder().encode(value) else { return nil }
    return try? JSONDecoder().decode(Value.self, from: data)
  }

  static var cachesDecodedValues: Bool { true }
}

/// An optional value: `nil` removes the key.
enum OptionalCoding<Wrapped: PreferenceCoding>: PreferenceCoding {
  typealias Value = Wrapped.Value?
  static func encode(_ value: Wrapped.Value?) throws -> PreferenceValue? {
    guard let value else { return nil }
    return try Wrapped.encode(value)
  }
  static func decode(_ value: PreferenceValue) -> Wrapped.Value?? {
    guard let decoded = Wrapped.decode(value) else { return nil }
    return .some(decoded)
  }
  static var cachesDecodedValues: Bool { Wrapped.cachesDecodedValues }
}
