import Foundation
import KuraBase
import KuraSQLite

extension ModelContext {
  /// The models a fetch descriptor selects whose searchable properties contain every word of
  /// `text` — as the start of a word (ignoring case and accents) or anywhere inside the text
  /// (ignoring the case of ASCII letters), so Japanese and Chinese, written without spaces, are
  /// found by any part: `寺` and `寺巡り` both find "お寺巡り".
  ///
  /// The model's full-text indexes answer the query (on SQLite, FTS5: a word index and a
  /// `trigram` index for substrings of three or more characters; a word of one or two characters
  /// that starts no word is looked for by scanning the searchable columns).
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
    let index = SearchIndex(schema: schema, columns: columns)
    let engine = container.pool.engine
    guard let match = index.condition(for: text, engine: engine) else { return [] }
    var (plan, _) = try plan(descriptor)
    plan.whereClause = plan.whereClause.map { match.sql + " AND (" + $0 + ")" } ?? match.sql
    plan.arguments.insert(contentsOf: match.arguments, at: 0)
    if descriptor.sortBy.isEmpty, let order = index.order(for: text, engine: engine) {
      // Best matches first.
      plan.orderBy = order.sql
      plan.arguments.append(contentsOf: order.arguments)
    }
    let saved = pendingChanges(Model.self) == nil
    guard saved else {
      // Search the saved models only: fetch through a context without pending changes.
      return try ModelContext(container).fetch(plan)
    }
    return try fetch(plan)
  }
}
