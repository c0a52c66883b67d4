import Foundation
import KuraBase
import KuraSQLite

/// What an attribute declaration of a ``Schema`` says about one stored property.
// Safety: the metatype and the default value are immutable values, only read.
package enum SchemaAttribute: @unchecked Sendable {
  /// The property holds the id of another model.
  case reference(target: any PersistentModel.Type, deleteRule: DeleteRule)
  /// The value an existing row gets when a migration adds the property.
  case defaultValue(Any)
  /// The property was called `from` in an earlier version of the model.
  case renamed(from: String)
  /// The property is indexed for full-text search.
  case searchable
}

extension Schema.Declaration {
  /// The property holds the id of a `target` model (a to-one relationship); deleting that model
  /// applies `deleteRule` to this one.
  ///
  /// The property's type is the target's id type (`Trip.ID`, or `Trip.ID?` for a reference that
  /// may be empty, which ``DeleteRule/nullify`` requires). Read the inverse, to-many side with
  /// `context.related(_:of:via:sortBy:)`.
  ///
  /// For example:
  ///
  /// ```swift
  /// struct Activity: PersistentModel {
  ///   var id = UUID()
  ///   var name: String
  ///   var trip: Trip.ID
  ///   static var schema: Schema<Activity> {
  ///     Schema(.reference(\.trip, to: Trip.self, deleteRule: .cascade))
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: The stored property holding the target's id.
  ///   - target: The model referred to.
  ///   - deleteRule: What deleting a target does to this model; ``DeleteRule/nullify`` by
  ///     default (SwiftData's default).
  /// - Returns: The declaration.
  public static func reference<Target: PersistentModel>(
    _ keyPath: KeyPath<Model, Target.ID>, to target: Target.Type,
    deleteRule: DeleteRule = .nullify
  ) -> Self {
    Self(
      kind: .attribute, keyPaths: [keyPath],
      attribute: .reference(target: target, deleteRule: deleteRule))
  }

  /// An optional to-one reference: the property holds the id of a `target` model or `nil`.
  ///
  /// For example: `.reference(\.bestActivity, to: Activity.self, deleteRule: .nullify)`.
  ///
  /// - Parameters:
  ///   - keyPath: The optional stored property holding the target's id.
  ///   - target: The model referred to.
  ///   - deleteRule: What deleting a target does to this model; ``DeleteRule/nullify`` by
  ///     default.
  /// - Returns: The declaration.
  public static func reference<Target: PersistentModel>(
    _ keyPath: KeyPath<Model, Target.ID?>, to target: Target.Type,
    deleteRule: DeleteRule = .nullify
  ) -> Self {
    Self(
      kind: .attribute, keyPaths: [keyPath],
      attribute: .reference(target: target, deleteRule: deleteRule))
  }

  /// The value rows stored before the property existed get when a migration adds it; this lets
  /// a new non-optional property migrate automatically.
  ///
  /// For example: `.defaultValue(\.rating, 3)`.
  ///
  /// - Parameters:
  ///   - keyPath: The stored property.
  ///   - value: Its value in existing rows.
  /// - Returns: The declaration.
  public static func defaultValue<Value: Codable & Sendable>(
    _ keyPath: KeyPath<Model, Value>, _ value: Value
  ) -> Self {
    Self(kind: .attribute, keyPaths: [keyPath], attribute: .defaultValue(value))
  }

  /// The property was called `oldName` in an earlier version of the model: a migration renames
  /// the column and keeps its values.
  ///
  /// For example: `.renamed(\.title, from: "name")`.
  ///
  /// - Parameters:
  ///   - keyPath: The stored property under its new name.
  ///   - oldName: Its name in the earlier version.
  /// - Returns: The declaration.
  public static func renamed(_ keyPath: PartialKeyPath<Model>, from oldName: String) -> Self {
    Self(kind: .attribute, keyPaths: [keyPath], attribute: .renamed(from: oldName))
  }

  /// The text properties are indexed for full-text search by words and by any part (SQLite FTS5,
  /// word and `trigram` indexes); search them with ``ModelContext/fetch(_:matching:)``.
  ///
  /// For example: `.searchable(\.name, \.notes)`.
  ///
  /// - Parameter keyPaths: `String` (or optional `String`) stored properties.
  /// - Returns: The declaration.
  public static func searchable(_ keyPaths: PartialKeyPath<Model>...) -> Self {
    Self(kind: .attribute, keyPaths: keyPaths, attribute: .searchable)
  }
}
