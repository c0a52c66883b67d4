/// A fetch that could not run as asked: what failed, for which model, why, and what to do.
///
/// For example:
///
/// ```swift
/// do {
///   _ = try context.fetch(FetchDescriptor<Student>(
///     predicate: #Predicate { $0.name.count > 3 }, allowsInMemoryFallback: false))
/// } catch let error as QueryError where error.code == .inMemoryFallbackForbidden {
///   print(error.inMemoryParts)
/// }
/// ```
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong.
  public enum Code: Sendable, Hashable {
    /// Part of the fetch has no SQL form and the descriptor forbids running it in memory.
    case inMemoryFallbackForbidden
    /// `fetchLimit` or `fetchOffset` is negative.
    case negativeLimit
  }

  /// What went wrong.
  public var code: Code
  /// The model type's name.
  public var model: String
  /// The parts that would have run in memory (for ``Code/inMemoryFallbackForbidden``).
  public var inMemoryParts: [String]

  /// Creates a query error.
  ///
  /// For example: `QueryError(code: .negativeLimit, model: "Student", inMemoryParts: [])`.
  ///
  /// - Parameters:
  ///   - code: What went wrong.
  ///   - model: The model type's name.
  ///   - inMemoryParts: The parts that would have run in memory.
  public init(code: Code, model: String, inMemoryParts: [String]) {
    self.code = code
    self.model = model
    self.inMemoryParts = inMemoryParts
  }

  /// The message: what failed, the model, why, and what to do.
  public var description: String {
    switch code {
    case .inMemoryFallbackForbidden:
      return "Can't fetch `\(model)` in SQL alone: "
        + inMemoryParts.joined(separator: "; ")
        + ". Rewrite that part (see \"Querying Models\") or set `allowsInMemoryFallback` to true."
    case .negativeLimit:
      return "Can't fetch `\(model)`: `fetchLimit` and `fetchOffset` must not be negative."
        + " Pass nil or a value of 0 or more."
    }
  }
}
