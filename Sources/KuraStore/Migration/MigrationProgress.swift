import Foundation
import KuraBase
import KuraSQLite

/// How far a migration is: reported to the progress callback of
/// ``ModelContainer/init(for:migrationPlan:configurations:progress:)`` while tables are copied.
///
/// For example:
///
/// ```swift
/// let container = try ModelContainer(for: [Trip.self], configurations: .default) { progress in
///   print("\(progress.model): \(Int(progress.fractionCompleted * 100))%")
/// }
/// ```
public struct MigrationProgress: Sendable, Hashable {
  /// The model whose table is being migrated, such as `Trip`.
  public var model: String
  /// What is done to it, such as `adding column rating` or `copying rows`.
  public var step: String
  /// Rows done in this step.
  public var completedRows: Int
  /// Rows in this step.
  public var totalRows: Int

  /// The part of the step done, from 0 to 1.
  public var fractionCompleted: Double {
    totalRows == 0 ? 1 : Double(completedRows) / Double(totalRows)
  }

  /// Creates the value from each of its stored properties.
  package init(model: String, step: String, completedRows: Int, totalRows: Int) {
    self.model = model
    self.step = step
    self.completedRows = completedRows
    self.totalRows = totalRows
  }
}

/// A migration plan and progress callback given to a container (internal).
package struct MigrationOptions: Sendable {
  // Safety: the metatype is an immutable value, only read.
  package nonisolated(unsafe) var plan: (any SchemaMigrationPlan.Type)?
  package var progress: (@Sendable (MigrationProgress) -> Void)?
}
