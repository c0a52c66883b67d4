import Foundation

extension ModelContext {
  /// The stored model with this id (with unsaved changes applied), or `nil`.
  ///
  /// For example:
  ///
  /// ```swift
  /// let student = try context.model(for: id, as: Student.self)
  /// ```
  ///
  /// - Parameters:
  ///   - id: The model's id.
  ///   - type: The model type.
  /// - Returns: The model, or `nil` when there is none (or it was deleted and not yet saved).
  /// - Throws: ``StoreError``.
  public func model<Model: PersistentModel>(for id: Model.ID, as type: Model.Type = Model.self)
    throws -> Model?
  {
    let schema = try container.schema(for: Model.self)
    if let pending = pendingChanges(Model.self), let change = pending.change(for: id) {
      switch change {
      case .upsert(let model): return model
      case .delete: return nil
      }
    }
    guard let key = schema.keyValue(id) else { return nil }
    return try read(schema) { db in
      let statement = try db.cachedStatement(StoreSQL.selectByID(schema))
      defer { statement.reset() }
      try statement.bind(key, at: 1)
      guard try statement.step() else { return nil }
      return try rowDecoder(schema, statement).decode(Model.self)
    }
  }

  /// The decoder for a cached statement of the store's connections, made once per statement
  /// (the statement outlives it: the decoder holds it, and connections keep their statements).
  func rowDecoder(_ schema: ModelSchema, _ statement: Statement) -> RowDecoder {
    let key = ObjectIdentifier(statement)
    if let decoder = decoders[key] { return decoder }
    let decoder = RowDecoder(schema: schema, statement: statement)
    // Bounded: reader connections come and go, and each has its own statements.
    if decoders.count >= 64 { decoders.removeAll(keepingCapacity: true) }
    decoders[key] = decoder
    return decoder
  }

  /// Runs `body` on a reader of the store, mapping SQLite errors to ``StoreError``.
  func read<Result>(_ schema: ModelSchema, _ body: (Connection) throws -> Result) throws
    -> Result
  {
    do {
      return try container.pool.read(body)
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: container.url, doing: "read from")
    }
  }

  /// Runs a plan: the SQL part in the store, the rest in memory, unsaved changes merged.
  func fetch<Model: PersistentModel>(_ plan: QueryPlan<Model>) throws -> [Model] {
    let schema = try container.schema(for: Model.self)
    let pending = pendingChanges(Model.self)
    if pending == nil && plan.isPureSQL {
      let sql = plan.sql(schema, paging: true)
      return try read(schema) { db in
        let statement = try db.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(plan.arguments)
        let decoder = rowDecoder(schema, statement)
        var models: [Model] = []
        while try statement.step() { models.append(try decoder.decode(Model.self)) }
        return models
      }
    }
    var models: [Model] = []
    let sql = plan.sql(schema, paging: false, ordering: !plan.sortInMemory)
    try read(schema) { db in
      let statement = try db.cachedStatement(sql)
      defer { statement.reset() }
      try statement.bind(plan.arguments)
      let decoder = rowDecoder(schema, statement)
      while try statement.step() {
        let model = try decoder.decode(Model.self)
        if let pending, pending.contains(model.id) { continue }
        if let residual = plan.residual, try !residual(model) { continue }
        models.append(model)
      }
    }
    var needsSort = plan.sortInMemory
    if let pending {
      for model in pending.upsertedModels {
        if let predicate = plan.predicate, try !predicate(model) { continue }
        models.append(model)
        needsSort = true
      }
    }
    if needsSort, let areInIncreasingOrder = plan.areInIncreasingOrder {
      models = stableSorted(models, by: areInIncreasingOrder)
    }
    let start = min(plan.offset ?? 0, models.count)
    let end = plan.limit.map { min(start + $0, models.count) } ?? models.count
    return start == 0 && end == models.count ? models : Array(models[start..<end])
  }

  /// Counts what ``fetch(_:)-(QueryPlan<Model>)`` would return, in SQL when it can.
  func fetchCount<Model: PersistentModel>(_ plan: QueryPlan<Model>) throws -> Int {
    let schema = try container.schema(for: Model.self)
    guard pendingChanges(Model.self) == nil, plan.residual == nil else {
      return try fetch(plan).count
    }
    var sql = "SELECT count(*) FROM (SELECT 1 FROM \(schema.quotedTable)"
    if let whereClause = plan.whereClause { sql += " WHERE " + whereClause }
    sql += QueryPlan<Model>.pagingSQL(limit: plan.limit, offset: plan.offset) + ")"
    return try read(schema) { db in
      Int(try db.queryFirst(sql, plan.arguments) { $0.int64(at: 0) } ?? 0)
    }
  }

  /// Calls `body` with each model a plan selects, one row at a time (memory stays constant).
  /// When unsaved changes or in-memory sorting are involved (or the store is in memory), the
  /// models are fetched first.
  func enumerate<Model: PersistentModel>(
    _ plan: QueryPlan<Model>, _ body: (Model) throws -> Void
  ) throws {
    let schema = try container.schema(for: Model.self)
    // An in-memory store has one connection: user code run while it reads could not write.
    guard pendingChanges(Model.self) == nil, !plan.sortInMemory, !container.pool.isInMemory else {
      for model in try fetch(plan) { try body(model) }
      return
    }
    var skipped = 0
    var yielded = 0
    let pagesInSQL = plan.residual == nil
    let sql = plan.sql(schema, paging: pagesInSQL)
    try read(schema) { db in
      try db.transaction(.deferred) {
        let statement = try db.prepare(sql)
        try statement.bind(plan.arguments)
        let decoder = RowDecoder(schema: schema, statement: statement)
        while try statement.step() {
          let model = try decoder.decode(Model.self)
          if !pagesInSQL {
            if let residual = plan.residual, try !residual(model) { continue }
            if skipped < plan.offset ?? 0 {
              skipped += 1
              continue
            }
            if let limit = plan.limit, yielded >= limit { break }
          }
          yielded += 1
          try body(model)
        }
      }
    }
  }
}

/// A stable sort (equal elements keep their order, as SQL's ORDER BY on rowid ties does).
func stableSorted<Element>(
  _ elements: [Element], by areInIncreasingOrder: (Element, Element) -> Bool
)
  -> [Element]
{
  elements.enumerated().sorted { lhs, rhs in
    if areInIncreasingOrder(lhs.element, rhs.element) { return true }
    if areInIncreasingOrder(rhs.element, lhs.element) { return false }
    return lhs.offset < rhs.offset
  }.map(\.element)
}
