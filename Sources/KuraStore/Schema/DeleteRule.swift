import Foundation
import KuraBase
import KuraSQLite

/// What deleting a model does to the models that refer to it through a declared reference.
///
/// Delete rules run when the deleting ``ModelContext`` saves, in the same transaction. The store
/// also declares the reference as an SQLite foreign key (except for ``noAction``), so a
/// reference to a missing model is refused at commit.
///
/// For example:
///
/// ```swift
/// static var schema: Schema<Activity> {
///   Schema(.reference(\.trip, to: Trip.self, deleteRule: .cascade))
/// }
/// ```
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
  /// Deleting the model deletes the models that refer to it, through any number of levels.
  case cascade
  /// Deleting the model sets the references to it to `nil` (the reference must be optional).
  case nullify
  /// Deleting a model that is still referred to fails with ``StoreError/Code/deleteDenied``,
  /// naming the rows that refer to it.
  case deny
  /// Deleting the model leaves the references as they are (they then point at nothing); no
  /// foreign key is declared.
  case noAction

  /// The `ON DELETE` action of the foreign key, or `nil` for ``noAction`` (no foreign key).
  package var foreignKeyAction: String? {
    switch self {
    case .cascade: return "CASCADE"
    case .nullify: return "SET NULL"
    case .deny: return "NO ACTION"
    case .noAction: return nil
    }
  }
}
