import Foundation
import KuraBase
import KuraSQLite

/// What a model declares about its table beyond its columns: unique attributes and indexes.
///
/// A unique attribute (one key path, or several that are unique together) makes an insert whose
/// values match a stored row update that row instead (SwiftData's upsert). An index speeds up
/// predicates and sorts on its key paths.
///
/// For example:
///
/// ```swift
/// struct Trip: PersistentModel {
///   var id = UUID()
///   var name: String
///   var startDate: Date
///   static var schema: Schema<Trip> {
///     Schema(.unique(\.name), .index(\.startDate), .index(\.name, \.startDate))
///   }
/// }
/// ```
public struct Schema<Model: PersistentModel> {
  /// One declaration: a unique constraint or an index over one or more key paths.
  ///
  /// For example: `.unique(\.name)` or `.index(\.name, \.startDate)`.
  public struct Declaration {
    package enum Kind { case unique, index, attribute }
    package let kind: Kind
    package let keyPaths: [PartialKeyPath<Model>]
    /// What an `.attribute` declaration says (references, defaults, renames, search); see
    /// `Schema+Attributes.swift`.
    package var attribute: SchemaAttribute? = nil

    /// Values of these stored properties are unique together; inserting a match updates the row.
    ///
    /// For example: `.unique(\.email)`.
    ///
    /// - Parameter keyPaths: One or more stored properties.
    /// - Returns: The declaration.
    public static func unique(_ keyPaths: PartialKeyPath<Model>...) -> Declaration {
      Declaration(kind: .unique, keyPaths: keyPaths)
    }

    /// An index over these stored properties, in order.
    ///
    /// For example: `.index(\.startDate)`.
    ///
    /// - Parameter keyPaths: One or more stored properties.
    /// - Returns: The declaration.
    public static func index(_ keyPaths: PartialKeyPath<Model>...) -> Declaration {
      Declaration(kind: .index, keyPaths: keyPaths)
    }
  }

  package let declarations: [Declaration]

  /// Declares a model's unique attributes and indexes.
  ///
  /// For example:
  ///
  /// ```swift
  /// static var schema: Schema<Student> { Schema(.unique(\.student)) }
  /// ```
  ///
  /// - Parameter declarations: Unique attributes and indexes.
  public init(_ declarations: Declaration...) {
    self.declarations = declarations
  }
}
