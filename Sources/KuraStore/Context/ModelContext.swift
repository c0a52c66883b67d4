import Foundation
import KuraBase
import KuraSQLite

/// A workspace on a ``ModelContainer``'s store: inserts, updates and deletes are kept here until
/// ``save()`` writes them in one transaction (or ``rollback()`` drops them); fetches read the store
/// with the unsaved changes applied.
///
/// A context is used by one thread or task at a time (it is not `Sendable`); make one per task
/// from the shared container. With ``autosaveEnabled``, each insert or delete is saved when it
/// returns (inside ``transaction(_:)``, when the transaction ends).
///
/// For example:
///
/// ```swift
/// let context = ModelContext(container)
/// try context.insert(Student(student: "Luna Lovegood"))
/// try context.save()
/// let students = try context.fetch(FetchDescriptor<Student>())
/// ```
public final class ModelContext {
  /// The container whose store this context reads and writes.
  ///
  /// For example: `let other = ModelContext(context.container)`.
  public let container: ModelContainer
  /// Whether each insert or delete is saved as soon as it returns; `false` for a context you
  /// create, `true` for ``ModelContainer/mainContext``.
  ///
  /// For example: `context.autosaveEnabled = true`.
  // Read by every insert and delete: without the dynamic exclusivity check (a context is used
  // by one thread at a time).
  @exclusivity(unchecked) public var autosaveEnabled = false
  // A context is used by one thread at a time, and these are never accessed overlapping: the
  // dynamic exclusivity checks (several per insert and per save) are left out.
  @exclusivity(unchecked) package var pending: [ObjectIdentifier: any AnyPendingChanges] = [:]
  /// The model types changed since the last save, in the order of their first change, each
  /// with its pending changes (a save finds them without hashing).
  @exclusivity(unchecked) package var pendingOrder: [PendingTable] = []
  @exclusivity(unchecked) private var transactionDepth = 0
  /// The pending changes used last, found without a dictionary lookup and a dynamic cast.
  @exclusivity(unchecked) private var lastTable:
    (key: ObjectIdentifier, table: any AnyPendingChanges)?
  /// The schema looked up last, found again without hashing.
  @exclusivity(unchecked) private var lastSchema: (key: ObjectIdentifier, schema: ModelSchema)?
  /// Row decoders by the cached statement they read.
  @exclusivity(unchecked) package var decoders = StatementCoders<RowDecoder>()
  /// Row encoders by the cached statement they bind.
  @exclusivity(unchecked) package var encoders = StatementCoders<RowEncoder>()
  /// The write transaction this context reads and saves in (a context ``ModelContainer/write(_:)``
  /// gives its body), or `nil` for a context that reads the store and saves in its own
  /// transactions.
  package let transactionConnection: StoreConnection?
  /// Whether a save wrote changes inside ``transactionConnection``'s transaction.
  @exclusivity(unchecked) package private(set) var savedInTransaction = false
  /// What saves keep for their history rows from save to save (a buffer, the last `models`).
  @exclusivity(unchecked) private var historyScratch = HistoryScratch()

  /// The container's schema of `Model` (the last one asked for is kept: a context mostly works
  /// with one model at a time, and the container's schemas never change).
  @inline(__always)
  package func schema<Model: PersistentModel>(of model: Model.Type) throws -> ModelSchema {
    let key = ObjectIdentifier(model)
    if let lastSchema, lastSchema.key == key { return lastSchema.schema }
    let schema = try container.schema(for: model)
    lastSchema = (key, schema)
    return schema
  }

  /// Creates a context on a container.
  ///
  /// For example: `let context = ModelContext(container)`.
  ///
  /// - Parameter container: The container.
  public init(_ container: ModelContainer) {
    self.container = container
    self.transactionConnection = nil
  }

  /// A context that reads and saves inside the write transaction of `connection` (see
  /// ``ModelContainer/write(_:)``).
  package init(_ container: ModelContainer, transaction connection: StoreConnection) {
    self.container = container
    self.transactionConnection = connection
  }

  /// Whether there are inserts, updates or deletes not saved yet.
  ///
  /// For example: `if context.hasChanges { try context.save() }`.
  // Every table holding changes is in `pendingOrder` (a table enters it with its first change
  // after a save, a rollback or a failed transaction): an array, looked through without hashing.
  public var hasChanges: Bool { pendingOrder.contains { !$0.table.isEmpty } }

  // MARK: Changing models

  /// Inserts a model, or updates the stored model with the same id, or (when the model declares
  /// unique attributes) the stored model with the same unique values.
  ///
  /// For example:
  ///
  /// ```swift
  /// try context.insert(Student(student: "Ron Weasley"))
  /// ```
  ///
  /// - Parameter model: The model. The context keeps it until the save: a model made for the
  ///   call (as above) or not used after it is moved there, not copied.
  /// - Throws: ``StoreError/Code/modelNotInContainer`` for a model type the container does not
  ///   store; with autosave, what ``save()`` throws.
  public func insert<Model: PersistentModel>(_ model: consuming Model) throws {
    try pendingTable(Model.self).upsert(model)
    if autosaveEnabled && transactionDepth == 0 { try save() }
  }

  /// Deletes a model (by its id).
  ///
  /// For example: `try context.delete(student)`.
  ///
  /// - Parameter model: The model.
  /// - Throws: ``StoreError/Code/modelNotInContainer``; with autosave, what ``save()`` throws.
  public func delete<Model: PersistentModel>(_ model: Model) throws {
    try change(Model.self) { $0.delete(model.id) }
  }

  /// Runs `changes` on the pending changes of one model type, then autosaves.
  package func change<Model: PersistentModel>(
    _ type: Model.Type, _ changes: (PendingChanges<Model>) throws -> Void
  ) throws {
    try changes(try pendingTable(Model.self))
    if autosaveEnabled && transactionDepth == 0 { try save() }
  }

  /// The pending changes of one model type, about to take a change: created (after checking
  /// that the container stores the type) on the type's first change, and put in the save order
  /// when empty.
  @inline(__always)
  private func pendingTable<Model: PersistentModel>(_ type: Model.Type) throws
    -> PendingChanges<Model>
  {
    let key = ObjectIdentifier(Model.self)
    let table: PendingChanges<Model>
    if let last = lastTable, last.key == key {
      // Safety: `lastTable` holds the `PendingChanges<Model>` stored under `key`.
      table = unsafeDowncast(last.table as AnyObject, to: PendingChanges<Model>.self)
    } else if let existing = pending[key] as? PendingChanges<Model> {
      table = existing
    } else {
      _ = try container.schema(for: Model.self)
      table = PendingChanges()
      pending[key] = table
    }
    // A type's first change since the last save puts it in the save order.
    if table.isEmpty { pendingOrder.append((key, table)) }
    lastTable = (key, table)
    return table
  }

  /// The table of pending changes of the model type with this identity when it holds any (the
  /// table used last is found without hashing).
  @inline(__always)
  private func nonEmptyTable(_ key: ObjectIdentifier) -> (any AnyPendingChanges)? {
    if pending.isEmpty { return nil }
    let table: (any AnyPendingChanges)?
    if let last = lastTable, last.key == key { table = last.table } else { table = pending[key] }
    guard let table, !table.isEmpty else { return nil }
    return table
  }

  /// Whether changes of the model type with this identity are pending.
  @inline(__always)
  package func hasPendingChanges(_ key: ObjectIdentifier) -> Bool { nonEmptyTable(key) != nil }

  /// The unsaved changes of one model type.
  package func pendingChanges<Model: PersistentModel>(_ type: Model.Type) -> PendingChanges<Model>?
  {
    // Found before the cast: casting looks up `PendingChanges<Model>`'s type metadata, a cost
    // every read would pay when nothing is pending.
    guard let any = nonEmptyTable(ObjectIdentifier(type)),
      let table = any as? PendingChanges<Model>
    else { return nil }
    return table
  }

  // MARK: Saving

  /// Writes every unsaved change to the store in one transaction. When it throws, the changes
  /// are still pending (fix them, or ``rollback()``), and nothing was written — except after
  /// ``StoreError/Code/commitOutcomeUnknown``: on PostgreSQL, a connection that broke while the
  /// save was committing and a server that could not be asked afterwards leave it unknown
  /// whether the save was written (read the data back before retrying; see
  /// <doc:ScalingOutWithPostgreSQL>). A save that returns normally committed once, also when
  /// the commit's answer was lost on the way.
  ///
  /// For example:
  ///
  /// ```swift
  /// try context.insert(student)
  /// try context.save()
  /// ```
  ///
  /// - Returns: What the save changed (also recorded in the store's history), with delete rules
  ///   applied; empty when there was nothing to save.
  /// - Throws: ``StoreError`` (such as ``StoreError/Code/encodingFailed`` or
  ///   ``StoreError/Code/engine`` for a constraint the changes break, or
  ///   ``StoreError/Code/deleteDenied`` for a delete a ``DeleteRule/deny`` rule refuses).
  @discardableResult
  public func save() throws -> ChangeSet {
    guard hasChanges else {
      if let transactionConnection {
        return ChangeSet.empty(at: try ChangeHistory.latestToken(transactionConnection))
      }
      return try container.emptyChangeSet()
    }
    if !container.configuration.allowsSave { throw Self.readOnlySave(container.storeURL) }
    if transactionConnection == nil, container.activeWriteHere != nil {
      throw container.nestedWrite()
    }
    let container = self.container
    let changeSet: ChangeSet
    do {
      changeSet = try inWriteTransaction { db in
        // Delete rules and the change feed (ChangeRecorder.swift).
        // The order is read where it is (a copy would make emptying it below allocate anew).
        var recorder = try ChangeRecorder(order: pendingOrder, container: container, db: db)
        for (key, table) in pendingOrder {
          guard !table.isEmpty, let schema = storedSchema(key) else { continue }
          let stored = recorder.storedDeletions(of: key)
          let written = try table.write(
            to: db, schema: schema, storedDeletions: stored
          ) { statement in
            rowEncoder(schema, statement)
          }
          recorder.record(written, model: schema.storedName)
        }
        let changeSet = try recorder.commit(db, scratch: &historyScratch)
        // A participant (sync: the changed properties, stamped, and an outbox entry) records
        // the save in this transaction. (Asked first whether there is one: binding the optional
        // copies the configured participant, also when there is none.)
        if container.hasSaveParticipant, let participant = container.configuration.saveParticipant {
          try participant.participant.recordSave(changeSet, container: container, db: db)
        }
        return changeSet
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: container.storeURL, doing: "save to")
    }
    // The tables are emptied, not dropped: the next change of the same model type reuses them.
    for (_, table) in pendingOrder { table.clear() }
    // Removed one by one, keeping the storage: `removeAll(keepingCapacity:)` costs about 200
    // instructions even for the one entry a save mostly has.
    while !pendingOrder.isEmpty { pendingOrder.removeLast() }
    if transactionConnection == nil {
      container.hub.didSave()  // wakes live queries of this process without waiting for inotify
    } else {
      savedInTransaction = true  // `ModelContainer.write` wakes them after its commit
    }
    return changeSet
  }

  /// The container's schema of the model type with this identity (the one looked up last is
  /// found without hashing).
  @inline(__always)
  private func storedSchema(_ key: ObjectIdentifier) -> ModelSchema? {
    if let lastSchema, lastSchema.key == key { return lastSchema.schema }
    // Kept for the next save (a context that only inserts never asks `schema(of:)`).
    guard let schema = container.schemas[key] else { return nil }
    lastSchema = (key, schema)
    return schema
  }

  /// Runs `body` in a write transaction: the store's own, or a savepoint of the transaction this
  /// context works in (so a failed save undoes only itself).
  private func inWriteTransaction<Result>(_ body: (StoreConnection) throws -> Result) throws
    -> Result
  {
    guard let transactionConnection else { return try container.pool.write(body) }
    return try transactionConnection.savepoint { try body(transactionConnection) }
  }

  /// The error for a save through a container opened for reading only.
  package static func readOnlySave(_ url: URL?) -> StoreError {
    let file = storeLabel(url)
    return StoreError(
      .cannotOpen, url: url,
      message:
        "Can't save to store \(file): its container was opened for reading only "
        + "(`allowsSave` is false). Nothing was written; open it with `allowsSave` true to "
        + "save.")
  }

  /// The encoder for a cached statement of the writer, made once per statement (see
  /// `rowDecoder(_:_:)`).
  private func rowEncoder(_ schema: ModelSchema, _ statement: StoreStatement) -> RowEncoder {
    encoders.coder(for: statement) { RowEncoder(schema: schema, statement: statement) }
  }

  /// Drops every unsaved change.
  ///
  /// For example:
  ///
  /// ```swift
  /// try context.delete(student)
  /// context.rollback()   // the student stays
  /// ```
  public func rollback() {
    pending.removeAll()
    pendingOrder.removeAll()
    lastTable = nil
  }

  /// Runs `block`, then saves every pending change in one transaction; when `block` throws, the
  /// changes it made are dropped (changes pending before it are kept) and the error is rethrown.
  ///
  /// For example:
  ///
  /// ```swift
  /// try context.transaction {
  ///   for name in names { try context.insert(Student(student: name)) }
  /// }
  /// ```
  ///
  /// - Parameter block: The changes.
  /// - Throws: What `block` throws, or what ``save()`` throws.
  public func transaction(_ block: () throws -> Void) throws {
    let marks = pending.mapValues(\.count)
    let savedOrder = pendingOrder
    transactionDepth += 1
    do {
      try block()
      transactionDepth -= 1
    } catch {
      transactionDepth -= 1
      for (key, table) in pending {
        if let mark = marks[key] { table.truncate(to: mark) } else { pending[key] = nil }
      }
      pendingOrder = savedOrder
      lastTable = nil
      throw error
    }
    if transactionDepth == 0 { try save() }
  }
}
