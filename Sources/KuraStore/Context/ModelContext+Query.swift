import Foundation
import KuraBase
import KuraSQLite

extension ModelContext {
  /// The models a fetch descriptor selects, with unsaved changes applied.
  ///
  /// The predicate and sort run as SQL where they can; what cannot is evaluated exactly in memory
  /// on the rows SQL narrowed (see ``fetchResult(_:)`` to learn which, and
  /// ``FetchDescriptor/allowsInMemoryFallback`` to forbid it).
  ///
  /// For example:
  ///
  /// ```swift
  /// let lunas = try context.fetch(
  ///   FetchDescriptor<Student>(
  ///     predicate: #Predicate { $0.student.starts(with: "Luna") },
  ///     sortBy: [SortDescriptor(\.added, order: .reverse)]))
  /// ```
  ///
  /// - Parameter descriptor: What to fetch.
  /// - Returns: The models.
  /// - Throws: ``StoreError``: ``StoreError/Code/inMemoryFallbackForbidden`` when the descriptor
  ///   forbids an in-memory fallback that is needed, ``StoreError/Code/negativeLimit`` for a
  ///   negative limit or offset.
  public func fetch<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws -> [Model]
  {
    try fetch(plan(descriptor).plan)
  }

  /// The models a fetch descriptor selects, and what part of the fetch ran in memory.
  ///
  /// For example:
  ///
  /// ```swift
  /// let result = try context.fetchResult(FetchDescriptor<Student>())
  /// print(result.models.count, result.inMemoryFallback == nil)
  /// ```
  ///
  /// - Parameter descriptor: What to fetch.
  /// - Returns: The models and the in-memory fallback, if any.
  /// - Throws: As ``fetch(_:)-(FetchDescriptor<Model>)``.
  public func fetchResult<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws
    -> FetchResult<Model>
  {
    let (plan, fallback) = try plan(descriptor)
    return FetchResult(models: try fetch(plan), inMemoryFallback: fallback)
  }

  /// How many models a fetch descriptor selects (counted in SQL when it can).
  ///
  /// For example: `let count = try context.fetchCount(FetchDescriptor<Student>())`.
  ///
  /// - Parameter descriptor: What to count.
  /// - Returns: The count.
  /// - Throws: As ``fetch(_:)-(FetchDescriptor<Model>)``.
  public func fetchCount<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws
    -> Int
  {
    try fetchCount(plan(descriptor).plan)
  }

  /// Calls `body` with each model a fetch descriptor selects, reading one row at a time, so
  /// memory stays constant however many rows there are. (With unsaved changes of the model type,
  /// an in-memory sort or an in-memory store, the models are fetched first.)
  ///
  /// For example:
  ///
  /// ```swift
  /// var total = 0.0
  /// try context.enumerate(FetchDescriptor<Trip>()) { trip in total += trip.budget }
  /// ```
  ///
  /// - Parameters:
  ///   - descriptor: What to read.
  ///   - body: Called once per model, in order.
  /// - Throws: As ``fetch(_:)-(FetchDescriptor<Model>)``, or what `body` throws.
  public func enumerate<Model: PersistentModel>(
    _ descriptor: FetchDescriptor<Model>, _ body: (Model) throws -> Void
  ) throws {
    try enumerate(plan(descriptor).plan, body)
  }

  /// Deletes every model of a type that matches a predicate (all of them without one).
  ///
  /// For example:
  ///
  /// ```swift
  /// try context.delete(model: Student.self, where: #Predicate { $0.student == "Ron Weasley" })
  /// try context.save()
  /// ```
  ///
  /// - Parameters:
  ///   - model: The model type.
  ///   - predicate: Which models to delete; `nil` deletes all.
  /// - Throws: As ``fetch(_:)-(FetchDescriptor<Model>)``; with autosave, what ``save()`` throws.
  public func delete<Model: PersistentModel>(
    model: Model.Type, where predicate: Predicate<Model>? = nil
  ) throws {
    let models = try fetch(FetchDescriptor<Model>(predicate: predicate))
    try change(Model.self) { pending in
      for model in models { pending.delete(model.id) }
    }
  }

  /// Translates a descriptor to the context's query plan.
  package func plan<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws -> (
    plan: QueryPlan<Model>, fallback: InMemoryFallback?
  ) {
    let schema = try schema(of: Model.self)
    let translated = try translate(descriptor, schema: schema, dialect: dialect)
    var plan = QueryPlan<Model>(
      whereClause: translated.whereClause, arguments: translated.arguments,
      orderBy: translated.orderBy, limit: translated.limit, offset: translated.offset)
    if let residual = translated.residual {
      plan.residual = { try residual.evaluate($0) }
    }
    if let predicate = descriptor.predicate {
      plan.predicate = { try predicate.evaluate($0) }
    }
    plan.sortInMemory = translated.sortsInMemory
    let sortBy = descriptor.sortBy
    if !sortBy.isEmpty {
      plan.areInIncreasingOrder = { lhs, rhs in
        for descriptor in sortBy {
          switch descriptor.kuraCompare(lhs, rhs) {
          case .orderedAscending: return true
          case .orderedDescending: return false
          case .orderedSame: continue
          }
        }
        return false
      }
    }
    return (plan, translated.fallback)
  }
}
