import Foundation
import KuraBase
import KuraSQLite

/// The models a fetch returned, and what part of it (if any) ran in memory instead of SQL.
///
/// For example:
///
/// ```swift
/// let result = try context.fetchResult(descriptor)
/// if let fallback = result.inMemoryFallback { print(fallback) }
/// ```
public struct FetchResult<Model: PersistentModel>: Sendable {
  /// The models, in the requested order.
  ///
  /// For example: `for student in result.models { print(student.student) }`.
  public var models: [Model]
  /// What ran in memory (a part of the predicate, or the sort), or `nil` when SQL did everything.
  ///
  /// For example: `if let fallback = result.inMemoryFallback { print(fallback) }`.
  public var inMemoryFallback: InMemoryFallback?
}
