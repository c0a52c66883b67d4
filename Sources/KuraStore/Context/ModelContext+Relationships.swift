import Foundation
import KuraBase
import KuraSQLite

extension FetchDescriptor {
  /// A descriptor for the models whose reference `keyPath` points at `target` (the inverse,
  /// to-many side of a to-one reference), such as a trip's activities.
  ///
  /// For example:
  ///
  /// ```swift
  /// let activities = try context.fetch(
  ///   FetchDescriptor<Activity>.related(to: trip, via: \.trip, sortBy: [SortDescriptor(\.name)]))
  /// ```
  ///
  /// - Parameters:
  ///   - target: The model referred to.
  ///   - keyPath: The reference property of `Model`.
  ///   - sortBy: The order of the results.
  /// - Returns: The descriptor.
  public static func related<Target: PersistentModel>(
    to target: Target, via keyPath: KeyPath<Model, Target.ID> & Sendable,
    sortBy: [SortDescriptor<Model>] = []
  ) -> FetchDescriptor<Model> where Target.ID: Codable {
    let id = target.id
    let predicate = Predicate<Model> { model in
      PredicateExpressions.build_Equal(
        lhs: PredicateExpressions.build_KeyPath(root: model, keyPath: keyPath),
        rhs: PredicateExpressions.build_Arg(id))
    }
    return FetchDescriptor(predicate: predicate, sortBy: sortBy)
  }

  /// A descriptor for the models whose optional reference `keyPath` points at `target`.
  ///
  /// For example: `FetchDescriptor<Activity>.related(to: trip, via: \.plannedTrip)`.
  ///
  /// - Parameters:
  ///   - target: The model referred to.
  ///   - keyPath: The optional reference property of `Model`.
  ///   - sortBy: The order of the results.
  /// - Returns: The descriptor.
  public static func related<Target: PersistentModel>(
    to target: Target, via keyPath: KeyPath<Model, Target.ID?> & Sendable,
    sortBy: [SortDescriptor<Model>] = []
  ) -> FetchDescriptor<Model> where Target.ID: Codable {
    let id: Target.ID? = target.id
    let predicate = Predicate<Model> { model in
      PredicateExpressions.build_Equal(
        lhs: PredicateExpressions.build_KeyPath(root: model, keyPath: keyPath),
        rhs: PredicateExpressions.build_Arg(id))
    }
    return FetchDescriptor(predicate: predicate, sortBy: sortBy)
  }
}

extension ModelContext {
  /// The models of type `Source` that refer to `target` through `keyPath`: the inverse,
  /// to-many side of a reference (a trip's activities), with unsaved changes applied.
  ///
  /// For example:
  ///
  /// ```swift
  /// let activities = try context.related(Activity.self, of: trip, via: \.trip)
  /// ```
  ///
  /// - Parameters:
  ///   - source: The referring model type.
  ///   - target: The model referred to.
  ///   - keyPath: The reference property of `Source`.
  ///   - sortBy: The order of the results.
  /// - Returns: The referring models.
  /// - Throws: What ``fetch(_:)`` throws.
  public func related<Source: PersistentModel, Target: PersistentModel>(
    _ source: Source.Type, of target: Target, via keyPath: KeyPath<Source, Target.ID> & Sendable,
    sortBy: [SortDescriptor<Source>] = []
  ) throws -> [Source] where Target.ID: Codable {
    try fetch(FetchDescriptor<Source>.related(to: target, via: keyPath, sortBy: sortBy))
  }

  /// The models of type `Source` whose optional reference `keyPath` points at `target`.
  ///
  /// For example: `try context.related(Activity.self, of: trip, via: \.plannedTrip)`.
  ///
  /// - Parameters:
  ///   - source: The referring model type.
  ///   - target: The model referred to.
  ///   - keyPath: The optional reference property of `Source`.
  ///   - sortBy: The order of the results.
  /// - Returns: The referring models.
  /// - Throws: What ``fetch(_:)`` throws.
  public func related<Source: PersistentModel, Target: PersistentModel>(
    _ source: Source.Type, of target: Target,
    via keyPath: KeyPath<Source, Target.ID?> & Sendable, sortBy: [SortDescriptor<Source>] = []
  ) throws -> [Source] where Target.ID: Codable {
    try fetch(FetchDescriptor<Source>.related(to: target, via: keyPath, sortBy: sortBy))
  }
}
