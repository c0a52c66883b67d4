import KuraBase
import KuraSQLite

/// Which parts of a fetch ran in memory instead of in SQL, and why.
///
/// For example:
///
/// ```swift
/// let result = try context.fetchResult(descriptor)
/// if let fallback = result.inMemoryFallback { print(fallback) }
/// // Filtered in memory: `\String.count` has no SQL form and runs in memory
/// ```
public struct InMemoryFallback: Sendable, Hashable, CustomStringConvertible {
  /// One sentence per predicate part that was evaluated in memory.
  public var predicateParts: [String]
  /// Why the sort ran in memory, or `nil` when SQL sorted.
  public var sortReason: String?

  /// Creates a description of an in-memory fallback.
  ///
  /// For example: `InMemoryFallback(predicateParts: [], sortReason: "…")`.
  ///
  /// - Parameters:
  ///   - predicateParts: The predicate parts evaluated in memory.
  ///   - sortReason: Why the sort ran in memory.
  public init(predicateParts: [String], sortReason: String?) {
    self.predicateParts = predicateParts
    self.sortReason = sortReason
  }

  /// "Filtered in memory: …; sorted in memory: …".
  public var description: String {
    var sentences: [String] = []
    if !predicateParts.isEmpty {
      sentences.append("filtered in memory: " + predicateParts.joined(separator: "; "))
    }
    if let sortReason { sentences.append("sorted in memory: " + sortReason) }
    guard let first = sentences.first else { return "" }
    return ([first.prefix(1).uppercased() + first.dropFirst()] + sentences.dropFirst())
      .joined(separator: "; ")
  }
}
