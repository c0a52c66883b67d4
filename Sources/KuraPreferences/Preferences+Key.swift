import Foundation
import KuraBase
import KuraSQLite

extension Preferences {
  /// A typed preference: its name in the suite and the value read when none is stored.
  ///
  /// Declare keys as static members so call sites read like SwiftUI's `@AppStorage`. For example:
  ///
  /// ```swift
  /// enum SortOption: String, Codable, Sendable { case title, date, completion }
  ///
  /// extension Preferences.Key {
  ///   static var sortOption: Preferences.Key<SortOption> { .init("sortOption", default: .title) }
  ///   static var launchCount: Preferences.Key<Int> { .init("launchCount", default: 0) }
  ///   static var lastUser: Preferences.Key<String?> { .init("lastUser") }
  /// }
  ///
  /// preferences[.sortOption] = .date
  /// let count = preferences[.launchCount]
  /// ```
  ///
  /// The value type may be any ``PreferenceRepresentable`` type (`Bool`, `Int`, `Double`, `String`,
  /// `URL`, `Data`, `Date`, `UUID`, `Float`, fixed-width integers, ``PreferenceValue``, and arrays,
  /// sets and `String`-keyed dictionaries of these), a `RawRepresentable` type whose raw value is one
  /// of those (an enum), any `Codable` type, or an optional of any of these (setting `nil` removes
  /// the key). A stored value that doesn't decode as the key's type reads as the default and is kept.
  public struct Key<Value: Sendable>: Sendable {
    /// The name the value is stored under.
    public let name: String
    /// The value read when the suite holds none (or holds one of another type).
    public let defaultValue: Value
    @usableFromInline package let coding: any PreferenceCoding<Value>.Type
    /// Whether decoded values are worth caching (Codable values); read on every access.
    @usableFromInline package let cachesDecodedValues: Bool

    package init(name: String, defaultValue: Value, coding: any PreferenceCoding<Value>.Type) {
      self.name = name
      self.defaultValue = defaultValue
      self.coding = coding
      self.cachesDecodedValues = coding.cachesDecodedValues
    }

    @inlinable
    package func decode(_ value: PreferenceValue) -> Value? { coding.decode(value) }

    package func encode(_ value: Value) throws -> PreferenceValue? {
      do {
        return try coding.encode(value)
      } catch {
        throw PreferencesError.cannotEncode(key: name, reason: "\(error)", underlying: error)
      }
    }

  }
}

// MARK: Non-optional values

extension Preferences.Key where Value: PreferenceRepresentable {
  /// Creates a key for a value stored as is.
  ///
  /// For example: `Preferences.Key<Int>("launchCount", default: 0)`.
  ///
  /// - Parameters:
  ///   - name: The name the value is stored under.
  ///   - defaultValue: The value read when none is stored.
  public init(_ name: String, default defaultValue: Value) {
    self.init(name: name, defaultValue: defaultValue, coding: RepresentableCoding<Value>.self)
  }
}

extension Preferences.Key where Value: RawRepresentable, Value.RawValue: PreferenceRepresentable {
  /// Creates a key for a value stored as its raw value (an enum with `String` or `Int` cases).
  ///
  /// For example: `Preferences.Key<SortOption>("sortOption", default: .title)`.
  ///
  /// - Parameters:
  ///   - name: The name the value is stored under.
  ///   - defaultValue: The value read when none is stored.
  public init(_ name: String, default defaultValue: Value) {
    self.init(name: name, defaultValue: defaultValue, coding: RawValueCoding<Value>.self)
  }
}

extension Preferences.Key where Value: Codable {
  /// Creates a key for a `Codable` value, stored as the tree of its JSON form.
  ///
  /// For example: `Preferences.Key<[Customer]>("customers", default: [])`.
  ///
  /// - Parameters:
  ///   - name: The name the value is stored under.
  ///   - defaultValue: The value read when none is stored.
  public init(_ name: String, default defaultValue: Value) {
    self.init(name: name, defaultValue: defaultValue, coding: CodableCoding<Value>.self)
  }
}

extension Preferences.Key where Value: PreferenceRepresentable & Codable {
  /// Creates a key for a value stored as is (preferred over its `Codable` form).
  ///
  /// For example: `Preferences.Key<[String]>("recentSearches", default: [])`.
  ///
  /// - Parameters:
  ///   - name: The name the value is stored under.
  ///   - defaultValue: The value read when none is stored.
  public init(_ name: String, default defaultValue: Value) {
    self.init(name: name, defaultValue: defaultValue, coding: RepresentableCoding<Value>.self)
  }
}

extension Preferences.Key
where Value: RawRepresentable & Codable, Value.RawValue: PreferenceRepresentable {
  /// Creates a key for an enum stored as its raw value (preferred over its `Codable` form).
  ///
  /// For example: `Preferences.Key<SortOption>("sortOption", default: .title)`.
  ///
  /// - Parameters:
  ///   - name: The name the value is stored under.
  ///   - defaultValue: The value read when none is stored.
  public init(_ name: String, default defaultValue: Value) {
    self.init(name: name, defaultValue: defaultValue, coding: RawValueCoding<Value>.self)
  }
}

// MARK: Optional values

extension Preferences.Key {
  /// Creates a key for an optional value stored as is; `nil` is the default and setting `nil`
  /// removes the key.
  ///
  /// For example: `Preferences.Key<String?>("lastUser")`.
  ///
  /// - Parameter name: The name the value is stored under.
  public init<Wrapped: PreferenceRepresentable>(_ name: String) where Value == Wrapped? {
    self.init(
      name: name, defaultValue: nil, coding: OptionalCoding<RepresentableCoding<Wrapped>>.self)
  }

  /// Creates a key for an optional enum stored as its raw value; setting `nil` removes the key.
  ///
  /// For example: `Preferences.Key<SortOption?>("lastSort")`.
  ///
  /// - Parameter name: The name the value is stored under.
  public init<Wrapped: RawRepresentable & Sendable>(_ name: String)
  where
    Value == Wrapped?,
    Wrapped.RawValue: PreferenceRepresentable
  {
    self.init(name: name, defaultValue: nil, coding: OptionalCoding<RawValueCoding<Wrapped>>.self)
  }

  /// Creates a key for an optional `Codable` value; setting `nil` removes the key.
  ///
  /// For example: `Preferences.Key<Customer?>("selectedCustomer")`.
  ///
  /// - Parameter name: The name the value is stored under.
  public init<Wrapped: Codable & Sendable>(_ name: String) where Value == Wrapped? {
    self.init(name: name, defaultValue: nil, coding: OptionalCoding<CodableCoding<Wrapped>>.self)
  }

  /// Creates a key for an optional value stored as is (preferred over its `Codable` form).
  ///
  /// For example: `Preferences.Key<Int?>("lastPage")`.
  ///
  /// - Parameter name: The name the value is stored under.
  public init<Wrapped: PreferenceRepresentable & Codable>(_ name: String)
  where Value == Wrapped? {
    self.init(
      name: name, defaultValue: nil, coding: OptionalCoding<RepresentableCoding<Wrapped>>.self)
  }

  /// Creates a key for an optional enum stored as its raw value (preferred over `Codable`).
  ///
  /// For example: `Preferences.Key<SortOption?>("lastSort")`.
  ///
  /// - Parameter name: The name the value is stored under.
  public init<Wrapped: RawRepresentable & Codable & Sendable>(_ name: String)
  where Value == Wrapped?, Wrapped.RawValue: PreferenceRepresentable {
    self.init(name: name, defaultValue: nil, coding: OptionalCoding<RawValueCoding<Wrapped>>.self)
  }
}
