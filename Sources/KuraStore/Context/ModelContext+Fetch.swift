import Foundation
import KuraBase
import KuraSQLite

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
  @inlinable
  public func model<Model: PersistentModel>(for id: Model.ID, as type: Model.Type = Model.self)
    throws -> Model?
  {
    // Inlined into the caller, where `Model` is a known type: in this module's generic code
    // every call would look up its type metadata, and each move of the model from one place
    // to the next would be a call of its value witness. The row is read straight into this
    // memory, and moved out of it once.
    try withUnsafeTemporaryAllocation(of: Model.self, capacity: 1) { buffer in
      let target = buffer.baseAddress.unsafelyUnwrapped
      guard try lookUp(id, as: type, into: target) else { return nil }
      return target.move()
    }
  }

  /// Initializes `target` with the model with this id (with unsaved changes applied) and
  /// returns `true`, or returns `false`, leaving it uninitialized, when there is none (also when
  /// it throws).
  @usableFromInline
  package func lookUp<Model: PersistentModel>(
    _ id: Model.ID, as type: Model.Type, into target: UnsafeMutablePointer<Model>
  ) throws -> Bool {
    let schema = try schema(of: Model.self)
    // Checked by type identity first: the generic types that looking into the pending changes
    // uses would otherwise have their metadata looked up on every call.
    if hasPendingChanges(ObjectIdentifier(type)),
      let found = lookUpPending(id, as: type, into: target)
    {
      return found
    }
    guard let key = schema.keyValue(id) else { return false }
    return try read(schema) { db in
      // Its one parameter is bound below: the statement's bindings are not cleared first.
      let statement = try db.cachedStatementToRebind(StoreSQL.selectByID(schema))
      // Rewound only (ends the read); the next use resets and rebinds it anyway.
      defer { statement.rewind() }
      // An integer key is bound as one (binding an `DatabaseValue` switches on it behind the seam).
      if case .integer(let integer) = key {
        try statement.bind(integer, at: 1)
      } else {
        try statement.bind(key, at: 1)
      }
      guard try statement.step() else { return false }
      try rowDecoder(schema, statement).decode(Model.self, into: target)
      return true
    }
  }

  /// What the unsaved changes say of the model with this id: `true` when it is an unsaved
  /// insert or update (`target` initialized with it), `false` when it is an unsaved delete, and
  /// `nil` when they say nothing of it.
  private func lookUpPending<Model: PersistentModel>(
    _ id: Model.ID, as type: Model.Type, into target: UnsafeMutablePointer<Model>
  ) -> Bool? {
    guard let pending = pendingChanges(Model.self), let change = pending.change(for: id) else {
      return nil
    }
    guard case .upsert(let model) = change else { return false }
    target.initialize(to: model)
    return true
  }

  /// The decoder for a cached statement of the store's connections, made once per statement
  /// (the statement outlives it: the decoder holds it, and connections keep their statements).
  package func rowDecoder(_ schema: ModelSchema, _ statement: StoreStatement) -> RowDecoder {
    decoders.coder(for: statement) { RowDecoder(schema: schema, statement: statement) }
  }

  /// The SQL dialect of the store's engine.
  package var dialect: any SQLDialect { container.pool.engine.dialect }

  /// Runs `body` on a reader of the store (on the transaction's connection inside
  /// ``ModelContainer/write(_:)``), mapping engine errors to ``StoreError``.
  package func read<Result>(_ schema: ModelSchema, _ body: (StoreConnection) throws -> Result)
    throws
    -> Result
  {
    do {
      // Tested for nil before it is bound: binding copies the existential (and destroys the
      // copy), about 200 instructions a lookup pays when there is no transaction.
      if transactionConnection != nil, let connection = transactionConnection {
        return try body(connection)
      }
      return try container.read(body)
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: container.storeURL, doing: "read from")
    }
  }

  /// Runs a plan: the SQL part in the store, the rest in memory, unsaved changes merged.
  package func fetch<Model: PersistentModel>(_ plan: QueryPlan<Model>) throws -> [Model] {
    let schema = try schema(of: Model.self)
    let pending = pendingChanges(Model.self)
    if pending == nil && plan.isPureSQL {
      let sql = plan.sql(schema, dialect: dialect, paging: true)
      return try read(schema) { db in
        let statement = try db.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(plan.arguments)
        let decoder = rowDecoder(schema, statement)
        guard try statement.step() else { return [] }
        if let rows = statement.rowsLeftHint {
          // The engine holds every row already: each is read straight into the array.
          return try Array(unsafeUninitializedCapacity: rows) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            repeat {
              try decoder.decode(Model.self, into: base + initialized)
              initialized += 1
            } while try initialized < rows && statement.step()
          }
        }
        // Collected in a log rather than an array: appending to an array of an unspecialized
        // generic type looks its type metadata up on every row.
        let models = ModelLog<Model>()
        repeat {
          try models.appendInPlace { try decoder.decode(Model.self, into: $0) }
        } while try statement.step()
        return models.moveToArray()
      }
    }
    var models: [Model] = []
    let view = try pending.map { try pendingView($0, schema: schema) }
    let sql = plan.sql(schema, dialect: dialect, paging: false, ordering: !plan.sortInMemory)
    try read(schema) { db in
      let statement = try db.cachedStatement(sql)
      defer { statement.reset() }
      try statement.bind(plan.arguments)
      let decoder = rowDecoder(schema, statement)
      while try statement.step() {
        let model = try decoder.decode(Model.self)
        if let view, view.replaced.contains(model.id) { continue }
        if let residual = plan.residual, try !residual(model) { continue }
        models.append(model)
      }
    }
    var needsSort = plan.sortInMemory
    if let view {
      for model in view.models {
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
  package func fetchCount<Model: PersistentModel>(_ plan: QueryPlan<Model>) throws -> Int {
    let schema = try schema(of: Model.self)
    guard pendingChanges(Model.self) == nil, plan.residual == nil else {
      return try fetch(plan).count
    }
    var sql = "SELECT count(*) FROM (SELECT 1 FROM \(schema.quotedTable)"
    if let whereClause = plan.whereClause { sql += " WHERE " + whereClause }
    sql += dialect.pagingClause(limit: plan.limit, offset: plan.offset) + ") AS page"
    return try read(schema) { db in
      Int(try db.queryFirst(sql, plan.arguments) { $0.int64(at: 0) } ?? 0)
    }
  }

  /// Calls `body` with each model a plan selects, one row at a time (memory stays constant).
  /// When unsaved changes or in-memory sorting are involved (or the store is in memory), the
  /// models are fetched first.
  package func enumerate<Model: PersistentModel>(
    _ plan: QueryPlan<Model>, _ body: (Model) throws -> Void
  ) throws {
    let schema = try schema(of: Model.self)
    // An in-memory store has one connection (and a write transaction one too): user code run
    // while it reads could not write.
    guard pendingChanges(Model.self) == nil, !plan.sortInMemory, !container.pool.isInMemory,
      transactionConnection == nil
    else {
      for model in try fetch(plan) { try body(model) }
      return
    }
    var skipped = 0
    var yielded = 0
    let pagesInSQL = plan.residual == nil
    let sql = plan.sql(schema, dialect: dialect, paging: pagesInSQL)
    try read(schema) { db in
      try db.transaction(.read) {
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

extension ModelContext {
  /// The unsaved models of a type as the save will store them, and the ids of the stored rows the
  /// save replaces or deletes.
  ///
  /// The save replays the log in order, and an upsert whose unique values equal (by Swift's `==`)
  /// those of a stored row or of an earlier unsaved model updates that row instead of adding one.
  /// The view replays the log the same way, so `fetch` and `fetchCount` count what the save will
  /// store. (A model merged into another row keeps its own id until it is saved.)
  package func pendingView<Model: PersistentModel>(
    _ pending: PendingChanges<Model>, schema: ModelSchema
  )
    throws -> (models: [Model], replaced: Set<Model.ID>)
  {
    guard !schema.uniqueConstraints.isEmpty else {
      var replaced: Set<Model.ID> = []
      pending.forEachChange { change in
        switch change {
        case .upsert(let model): replaced.insert(model.id)
        case .delete(let id): replaced.insert(id)
        }
      }
      return (pending.upsertedModels, replaced)
    }
    // The rows the replay touched, by the id of the row that holds them (nil once deleted), in
    // the order they were first touched; and, per unique constraint, the row holding each value.
    var rows: [Model.ID: Model?] = [:]
    var order: [Model.ID] = []
    var holders: [[UniqueKey: Model.ID]] = Array(
      repeating: [:], count: schema.uniqueConstraints.count)
    func store(_ model: Model?, in row: Model.ID) {
      if rows[row] == nil { order.append(row) }
      if let old = rows[row] ?? nil {
        for (number, columns) in schema.uniqueConstraints.enumerated() {
          if let key = UniqueKey(old, columns, schema), holders[number][key] == row {
            holders[number][key] = nil
          }
        }
      }
      rows[row] = .some(model)
      guard let model else { return }
      for (number, columns) in schema.uniqueConstraints.enumerated() {
        if let key = UniqueKey(model, columns, schema) { holders[number][key] = row }
      }
    }
    try pending.forEachChange { change in
      switch change {
      case .delete(let id):
        store(nil, in: id)
      case .upsert(let model):
        if rows[model.id] != nil {
          store(model, in: model.id)
          return
        }
        for (number, columns) in schema.uniqueConstraints.enumerated() {
          guard let key = UniqueKey(model, columns, schema) else { continue }
          if let holder = holders[number][key] {
            store(model, in: holder)
            return
          }
        }
        if let stored = try storedRow(holding: model, schema: schema), stored != model.id {
          store(model, in: stored)
        } else {
          store(model, in: model.id)
        }
      }
    }
    let models = order.compactMap { rows[$0] ?? nil }
    return (models, Set(order))
  }

  /// The id of the stored row whose unique values equal `model`'s (the row an upsert of `model`
  /// would update), or `nil`.
  private func storedRow<Model: PersistentModel>(holding model: Model, schema: ModelSchema)
    throws -> Model.ID?
  {
    if let key = schema.keyValue(model.id) {
      let exists = try read(schema) { db in
        try db.queryFirst(schema.existsByIDSQL, [key]) { _ in true }
      }
      if exists == true { return model.id }
    }
    for columns in schema.uniqueConstraints {
      var conditions: [String] = []
      var values: [DatabaseValue] = []
      for index in columns {
        let column = schema.columns[index]
        guard let raw = model[keyPath: column.keyPath],
          let value = databaseValue(for: raw, kind: column.kind), !value.isNull
        else { break }
        let name = quoteIdentifier(column.name)
        guard
          let condition =
            column.valueType == String.self
            ? dialect.swiftStringComparison(name, "=", "?")
            : name + " = ?"
        else { break }
        conditions.append(condition)
        values.append(value)
      }
      guard values.count == columns.count else { continue }
      let sql = StoreSQL.select(schema) + " WHERE " + conditions.joined(separator: " AND ")
      let found: Model? = try read(schema) { db in
        let statement = try db.prepare(sql)
        try statement.bind(values)
        guard try statement.step() else { return nil }
        return try RowDecoder(schema: schema, statement: statement).decode(Model.self)
      }
      if let found { return found.id }
    }
    return nil
  }
}

/// The values of one unique constraint of a model, compared as the store's unique index compares
/// them (text by Swift's `==`); `nil` when one is NULL (NULLs never conflict).
private struct UniqueKey: Hashable {
  var parts: [DatabaseValue]

  init?<Model>(_ model: Model, _ columns: [Int], _ schema: ModelSchema) {
    var parts: [DatabaseValue] = []
    for index in columns {
      let column = schema.columns[index]
      guard let raw = model[keyPath: column.keyPath],
        var value = databaseValue(for: raw, kind: column.kind), !value.isNull
      else { return nil }
      if case .text(let text) = value, column.valueType == String.self {
        value = .text(String(decoding: nfcUTF8(text), as: UTF8.self))
      }
      parts.append(value)
    }
    self.parts = parts
  }
}

/// A stable sort (equal elements keep their order, as SQL's ORDER BY on rowid ties does).
package func stableSorted<Element>(
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

/// A context's row decoders or encoders by the cached statement each serves, made once per
/// statement (the statement outlives its coder: the coder holds it, and connections keep their
/// statements). The one used last is found without hashing, since one statement used over and
/// over is the common case; the others are bounded, since reader connections come and go, each
/// with its own statements.
package struct StatementCoders<Coder: AnyObject> {
  private var byStatement: [ObjectIdentifier: Coder] = [:]
  private var last: (key: ObjectIdentifier, coder: Coder)?

  /// The coder of `statement`, made by `make` the first time.
  @inline(__always)
  package mutating func coder(for statement: StoreStatement, make: () -> Coder) -> Coder {
    let key = statement.identity
    if let last, last.key == key { return last.coder }
    let coder: Coder
    if let known = byStatement[key] {
      coder = known
    } else {
      coder = make()
      if byStatement.count >= 64 { byStatement.removeAll(keepingCapacity: true) }
      byStatement[key] = coder
    }
    last = (key, coder)
    return coder
  }
}
