import Foundation

extension ModelContext {
  /// The models a fetch descriptor selects whose searchable properties contain every word of
  /// `text` (as a word or the start of one, ignoring case and accents), using the model's
  /// full-text index (SQLite FTS5).
  ///
  /// Declare the searchable properties with ``Schema/Declaration/searchable(_:)``. Without sort
  /// descriptors the best matches come first. Only saved models are searched: unsaved changes
  /// of this context are not.
  ///
  /// For example:
  ///
  /// ```swift
  /// let trips = try context.fetch(FetchDescriptor<Trip>(), matching: "kyoto temple")
  /// ```
  ///
  /// - Parameters:
  ///   - descriptor: The fetch; its predicate, sort, limit and offset apply too.
  ///   - text: The words to find; an empty text matches nothing.
  /// - Returns: The matching models.
  /// - Throws: ``StoreError/Code/unsupportedQuery`` when the model declares no searchable
  ///   property; what ``fetch(_:)`` throws.
  public func fetch<Model: PersistentModel>(
    _ descriptor: FetchDescriptor<Model>, matching text: String
  ) throws -> [Model] {
    let schema = try container.schema(for: Model.self)
    let columns = container.graph.attributesByTable[schema.tableName]?.searchable ?? []
    guard !columns.isEmpty else {
      throw StoreError(
        .unsupportedQuery, model: schema.modelName,
        message:
          "Can't search `\(schema.modelName)`: none of its properties is searchable. Declare "
          + "`.searchable(\\.name)` in `\(schema.modelName).schema`.")
    }
    guard let query = SearchIndex.query(for: text) else { return [] }
    let index = SearchIndex(schema: schema, columns: columns)
    var (plan, _) = try plan(descriptor)
    let match =
      "\(schema.quotedTable).rowid IN (SELECT rowid FROM \(index.quotedName) WHERE "
      + "\(index.quotedName) MATCH ?)"
    plan.whereClause = plan.whereClause.map { match + " AND (" + $0 + ")" } ?? match
    plan.arguments.insert(.text(query), at: 0)
    if descriptor.sortBy.isEmpty {
      plan.orderBy =
        "(SELECT rank FROM \(index.quotedName) WHERE \(index.quotedName) MATCH ? AND "
        + "\(index.quotedName).rowid = \(schema.quotedTable).rowid)"
      plan.arguments.append(.text(query))
    }
    let saved = pendingChanges(Model.self) == nil
    guard saved else {
      // Search the saved models only: fetch through a context without pending changes.
      return try ModelContext(container).fetch(plan)
    }
    return try fetch(plan)
  }
}
