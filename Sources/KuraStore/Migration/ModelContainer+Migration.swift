import Foundation
import KuraBase
import KuraSQLite

extension ModelContainer {
  /// Opens (creating when missing) the store for the given model types, migrating it when the
  /// models changed, with a plan for changes that need your code and a progress callback.
  ///
  /// Opening a store whose models changed migrates it in one transaction: added optional or
  /// defaulted properties, removed properties, declared renames and widened types need no plan.
  /// A change Kura cannot make safely throws ``StoreError/Code/migrationRefused`` before
  /// anything is changed.
  ///
  /// For example:
  ///
  /// ```swift
  /// let container = try ModelContainer(
  ///   for: [Trip.self, Activity.self], migrationPlan: TripsPlan.self,
  ///   configurations: .default
  /// ) { progress in
  ///   print(progress.model, progress.completedRows, "/", progress.totalRows)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - models: The model types stored (the plan's latest version).
  ///   - migrationPlan: The versions and custom stages, or `nil` for automatic migration only.
  ///   - configurations: Where the store lives; `.default` when none is given.
  ///   - progress: Called (on the opening thread) as rows are copied.
  /// - Throws: What ``init(for:configurations:)`` throws, ``StoreError/Code/migrationRefused``
  ///   for a change Kura cannot make by itself (nothing is changed), and
  ///   ``StoreError/Code/migrationFailed`` when a custom stage throws (nothing is changed).
  public convenience init(
    for models: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
    configurations: ModelConfiguration...,
    progress: (@Sendable (MigrationProgress) -> Void)? = nil
  ) throws {
    try self.init(
      models: models, configurations: configurations,
      migration: MigrationOptions(plan: migrationPlan, progress: progress))
  }
}
