import Foundation
import KuraBase
import KuraSQLite

/// What to fetch: which models (a `#Predicate`), in which order, and how many.
///
/// The predicate and the sort descriptors are Foundation's own and are translated to SQL with
/// every value bound. A part of the predicate that SQL can't evaluate with exactly Swift's
/// semantics runs in memory on the rows the SQL part narrowed (the article "Querying Models" lists
/// which forms run where); set ``allowsInMemoryFallback`` to `false` to make that an error
/// instead.
///
/// For example:
///
/// ```swift
/// var descriptor = FetchDescriptor<Student>(
///   predicate: #Predicate { $0.student.starts(with: "H") && $0.added > cutoff },
///   sortBy: [SortDescriptor(\.student)]
/// )
/// descriptor.fetchLimit = 10
/// let students = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<Model: PersistentModel>: Sendable {
  /// Which models to fetch; `nil` fetches all.
  public var predicate: Predicate<Model>?
  /// The order, by several keys; empty leaves the order to the store.
  public var sortBy: [SortDescriptor<Model>]
  /// At most this many models (after the offset); `nil` for no limit.
  public var fetchLimit: Int?
  /// Skip this many models first; `nil` for none.
  public var fetchOffset: Int?
  /// Whether parts that have no exact SQL form may run in memory (`true`, the default) or make
  /// the fetch throw ``StoreError`` (`false`).
  public var allowsInMemoryFallback: Bool

  /// Creates a fetch descriptor.
  ///
  /// For example:
  ///
  /// ```swift
  /// let newest = FetchDescriptor<Student>(sortBy: [SortDescriptor(\.added, order: .reverse)])
  /// ```
  ///
  /// - Parameters:
  ///   - predicate: Which models to fetch; `nil` fetches all.
  ///   - sortBy: The order.
  ///   - fetchLimit: At most this many models.
  ///   - fetchOffset: Skip this many models first.
  ///   - allowsInMemoryFallback: Whether parts without an SQL form may run in memory.
  public init(
    predicate: Predicate<Model>? = nil, sortBy: [SortDescriptor<Model>] = [],
    fetchLimit: Int? = nil, fetchOffset: Int? = nil, allowsInMemoryFallback: Bool = true
  ) {
    self.predicate = predicate
    self.sortBy = sortBy
    self.fetchLimit = fetchLimit
    self.fetchOffset = fetchOffset
    self.allowsInMemoryFallback = allowsInMemoryFallback
  }
}
