import Foundation
import KuraBase
import KuraSQLite

/// One version of an app's models, for a ``SchemaMigrationPlan`` (like SwiftData's
/// `VersionedSchema`): the version number and the model types as they were in that version.
///
/// For example:
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///   static let versionIdentifier = 1
///   static var models: [any PersistentModel.Type] { [Trip.self] }
///   struct Trip: PersistentModel { var id = UUID(); var name: String }
/// }
/// ```
public protocol VersionedSchema {
  /// The version number, recorded in the store file; versions grow.
  static var versionIdentifier: Int { get }
  /// The model types of this version.
  static var models: [any PersistentModel.Type] { get }
}

/// How a store moves through the versions of its models (like SwiftData's
/// `SchemaMigrationPlan`): the versions in order and a stage from each to the next.
///
/// Changes Kura makes by itself (an added optional or defaulted property, a removed property, a
/// declared rename, a widened type) need no plan: a plan is for changes that need your code,
/// such as filling a new non-optional property or splitting a property in two.
///
/// For example:
///
/// ```swift
/// enum TripsPlan: SchemaMigrationPlan {
///   static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
///   static var stages: [MigrationStage] {
///     [
///       .custom(fromVersion: TripsV1.self, toVersion: TripsV2.self) { context in
///         try context.transform(TripsV1.Trip.self, to: TripsV2.Trip.self) { old in
///           TripsV2.Trip(id: old.id, name: old.name, rating: 3)
///         }
///       }
///     ]
///   }
/// }
/// let container = try ModelContainer(
///   for: [TripsV2.Trip.self], migrationPlan: TripsPlan.self, configurations: .default)
/// ```
public protocol SchemaMigrationPlan {
  /// Every version, oldest first.
  static var schemas: [any VersionedSchema.Type] { get }
  /// The stages from one version to the next.
  static var stages: [MigrationStage] { get }
}

/// A step of a ``SchemaMigrationPlan`` from one ``VersionedSchema`` to the next.
///
/// For example: `.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)`.
public struct MigrationStage: Sendable {
  package let fromVersion: Int
  package let toVersion: Int
  package let toModels: [any PersistentModel.Type]
  package let migrate: (@Sendable (MigrationContext) throws -> Void)?

  /// A stage Kura makes by itself: added optional or defaulted properties, removed properties,
  /// declared renames and widened types.
  ///
  /// For example: `.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)`.
  ///
  /// - Parameters:
  ///   - fromVersion: The version the store is at.
  ///   - toVersion: The version it moves to.
  /// - Returns: The stage.
  public static func lightweight(
    fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type
  ) -> MigrationStage {
    MigrationStage(
      fromVersion: fromVersion.versionIdentifier, toVersion: toVersion.versionIdentifier,
      toModels: toVersion.models, migrate: nil)
  }

  /// A stage that runs your code: `migrate` changes the data (with the old model types; see
  /// ``MigrationContext``), then Kura moves the tables to the new version's models by itself.
  ///
  /// For example:
  ///
  /// ```swift
  /// .custom(fromVersion: TripsV1.self, toVersion: TripsV2.self) { context in
  ///   try context.transform(TripsV1.Trip.self, to: TripsV2.Trip.self) { old in
  ///     TripsV2.Trip(id: old.id, name: old.name, rating: 3)
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - fromVersion: The version the store is at.
  ///   - toVersion: The version it moves to.
  ///   - migrate: Your code; it runs inside the migration's transaction, so when it throws the
  ///     store is left as it was.
  /// - Returns: The stage.
  public static func custom(
    fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
    migrate: @escaping @Sendable (MigrationContext) throws -> Void
  ) -> MigrationStage {
    MigrationStage(
      fromVersion: fromVersion.versionIdentifier, toVersion: toVersion.versionIdentifier,
      toModels: toVersion.models, migrate: migrate)
  }
}
