import Foundation
import KuraBase
import KuraSQLite

/// A type whose values a ``ModelContainer`` stores: a plain `Codable` struct with an identifier.
///
/// The store derives a table from the type: one row per model, one column per stored property,
/// named after the property. The `id` property is the primary key (a `UUID`, an integer or a
/// `String`). Columns are `NOT NULL` unless the property is optional. Supported property types are
/// the integers, `Double`, `Float`, `Bool`, `String`, `Date`, `UUID`, `URL`, `Data`, optionals
/// of those, `RawRepresentable` enums (stored as their raw value) and any other `Codable` value
/// (stored as JSON text). The coding keys must be the property names (the synthesized `Codable`
/// conformance does this).
///
/// Declare unique attributes and indexes in ``schema``, and rename the table with
/// ``schemaName``.
///
/// For example:
///
/// ```swift
/// struct Student: PersistentModel {
///   var id = UUID()
///   var student: String
///   static var schema: Schema<Student> { Schema(.index(\.student)) }
/// }
/// ```
public protocol PersistentModel: Codable, Identifiable, Sendable where ID: Hashable & Sendable {
  /// The name of the model's table; the type's name by default.
  ///
  /// For example: `static var schemaName: String { "students" }`.
  static var schemaName: String { get }

  /// The model's unique attributes and indexes; none by default.
  ///
  /// For example:
  ///
  /// ```swift
  /// static var schema: Schema<Trip> { Schema(.unique(\.name), .index(\.startDate)) }
  /// ```
  static var schema: Schema<Self> { get }
}

extension PersistentModel {
  /// The type's name, such as `Trip`.
  ///
  /// For example: `print(Trip.schemaName)   // Trip`.
  public static var schemaName: String { String(describing: Self.self) }

  /// No unique attributes and no indexes.
  ///
  /// For example: `static var schema: Schema<Note> { Schema() }` is what you get by default.
  public static var schema: Schema<Self> { Schema() }
}
