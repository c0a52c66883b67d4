import Foundation
import KuraBase
import KuraSQLite

// Changing a store's rows without their Swift types (`kura studio --write`): a batch of
// inserts, updates and deletes, checked against the models as found and saved in one write
// transaction through the store's own save machinery: the delete rules (`DeleteRuleApplier`),
// the references, the unique attributes, and the history (so the change feed reports it).

/// One change of a batch: insert a row, update some of its properties, or delete it.
package struct RowEdit: Sendable, Equatable {
  /// What the change does.
  package enum Action: String, Sendable, Codable, Equatable {
    /// A new row (its key among the values; an integer or UUID key is made when missing).
    case insert
    /// New values for some properties of a stored row.
    case update
    /// The row goes, with what its delete rules take along.
    case delete
  }

  /// What the change does.
  package var action: Action
  /// The model changed.
  package var model: String
  /// The row's key (update and delete).
  package var key: DatabaseValue?
  /// The properties set, as text the page shows (a date in ISO 8601, data as hexadecimal);
  /// `nil` sets `nil`.
  package var values: [String: String?]

  package init(
    action: Action, model: String, key: DatabaseValue? = nil, values: [String: String?] = [:]
  ) {
    self.action = action
    self.model = model
    self.key = key
    self.values = values
  }
}

/// Why a batch of edits was refused: which edit and property, and a sentence saying it. Nothing
/// of the batch was written.
package struct RowEditError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The position of the edit in its batch, or `nil` when the batch as a whole was refused.
  package var edit: Int?
  /// The model.
  package var model: String?
  /// The property, when one is at fault.
  package var property: String?
  /// What is wrong, and that nothing was saved.
  package var message: String

  package var description: String { message }
}

/// What a saved batch did.
package struct RowEditOutcome: Sendable {
  /// The change set recorded in the history (with what the delete rules did).
  package var changeSet: ChangeSet
  /// The keys of the inserted rows, in the batch's order of inserts.
  package var insertedKeys: [DatabaseValue]
}

extension BrowsedModel.Column {
  /// The stored value for `text` as the page gives it (`nil`: the property's `nil`).
  ///
  /// - Throws: ``RowEditError`` naming the property when the text is not a value of its kind.
  package func storedValue(_ text: String?, model: String) throws -> DatabaseValue {
    func refuse(_ why: String) -> RowEditError {
      RowEditError(
        model: model, property: name,
        message: "`\(model).\(name)` \(why) Nothing was saved.")
    }
    guard let text else {
      if isOptional { return .null }
      throw refuse("can't be nil: it is not optional.")
    }
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    switch storedKind {
    case .text:
      return .text(text)
    case .integer:
      guard let number = Int64(trimmed) else {
        throw refuse("is an integer: `\(text)` is not one (give digits, such as 42).")
      }
      return .integer(number)
    case .real:
      guard let number = Double(trimmed) else {
        throw refuse("is a number: `\(text)` is not one (give one such as 12.5).")
      }
      return number.databaseValue
    case .bool:
      switch trimmed.lowercased() {
      case "true", "1", "yes": return .integer(1)
      case "false", "0", "no": return .integer(0)
      default: throw refuse("is true or false: `\(text)` is neither.")
      }
    case .date:
      guard let date = Self.date(trimmed) else {
        throw refuse(
          "is a date: `\(text)` is not one. Give it in ISO 8601, such as "
            + "2026-12-06T09:30:00Z or 2026-12-06T09:30:00.250+09:00.")
      }
      return date.timeIntervalSinceReferenceDate.databaseValue
    case .uuid:
      guard let uuid = UUID(uuidString: trimmed) else {
        throw refuse(
          "is a UUID: `\(text)` is not one (such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F).")
      }
      return .text(uuid.uuidString)
    case .url:
      guard !trimmed.isEmpty, let url = URL(string: trimmed) else {
        throw refuse("is a URL: `\(text)` is not one.")
      }
      return .text(url.absoluteString)
    case .json:
      guard
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
          != nil
      else {
        throw refuse("holds JSON: `\(text)` is not JSON.")
      }
      return .text(text)
    case .blob:
      let hex = trimmed.filter { !$0.isWhitespace }
      var bytes: [UInt8] = []
      var index = hex.startIndex
      while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
        guard let byte = UInt8(hex[index..<next], radix: 16),
          hex.distance(from: index, to: next) == 2
        else {
          throw refuse("holds data: give it as hexadecimal bytes (such as 00ff10).")
        }
        bytes.append(byte)
        index = next
      }
      return .blob(Data(bytes))
    }
  }

  /// A date in ISO 8601: with or without fractional seconds and time zone (UTC when none), or
  /// a day alone (its midnight, UTC).
  static func date(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    for options: ISO8601DateFormatter.Options in [
      [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
      [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate],
      [.withFullDate],
    ] {
      formatter.formatOptions = options
      if let date = formatter.date(from: text) { return date }
    }
    return nil
  }
}

extension ModelContainer {
  /// A container of no model types on a store as found, that writes the batches of
  /// ``saveEdits(_:models:)`` (`kura studio --write`).
  ///
  /// - Throws: ``StoreError`` when the store can't be opened.
  package static func editing(_ configuration: ModelConfiguration) throws -> ModelContainer {
    var configuration = configuration
    configuration.allowsSave = true
    return try ModelContainer(models: [], configurations: [configuration], migration: nil)
  }

  /// Saves a batch of edits of `models` (the store's models as ``StoreInspector`` found them)
  /// in one write transaction, as a context's save does: the delete rules run (cascades,
  /// nullify, deny), references must point at stored rows, unique attributes hold, and the
  /// history records the change set (the change feed of every process reports it).
  ///
  /// - Throws: ``RowEditError`` naming the edit and property at fault (a malformed value, a
  ///   missing row, a taken unique value, a reference to nothing, a refused delete); nothing of
  ///   the batch is written then. ``StoreError`` when the store can't be written.
  package func saveEdits(_ edits: [RowEdit], models: [BrowsedModel]) throws -> RowEditOutcome {
    if !configuration.allowsSave { throw ModelContext.readOnlySave(storeURL) }
    // Every value is checked before anything is written.
    var planned: [(edit: RowEdit, model: BrowsedModel, values: [(String, DatabaseValue)])] = []
    for (position, edit) in edits.enumerated() {
      do {
        guard let model = models.first(where: { $0.name == edit.model }) else {
          throw RowEditError(
            model: edit.model, message: "The store has no model `\(edit.model)`.")
        }
        var values: [(String, DatabaseValue)] = []
        for (name, text) in edit.values.sorted(by: { $0.key < $1.key }) {
          guard let column = model.columns.first(where: { $0.name == name }) else {
            throw RowEditError(
              model: model.name, property: name,
              message: "`\(model.name)` has no property `\(name)`. Nothing was saved.")
          }
          if edit.action == .update, column.isPrimaryKey {
            throw RowEditError(
              model: model.name, property: name,
              message:
                "`\(model.name).\(name)` is the row's key: it can't change. Insert a new row "
                + "instead. Nothing was saved.")
          }
          values.append((name, try column.storedValue(text, model: model.name)))
        }
        if edit.action != .insert, edit.key == nil {
          throw RowEditError(
            model: model.name, message: "Give the key of the `\(model.name)` row to change.")
        }
        planned.append((edit, model, values))
      } catch var error as RowEditError {
        error.edit = position
        throw error
      }
    }
    let outcome = try pool.write { db in
      try Self.apply(planned, models: models, db: db, history: historyState)
    }
    hub.didSave()
    return outcome
  }

  private static func apply(
    _ planned: [(edit: RowEdit, model: BrowsedModel, values: [(String, DatabaseValue)])],
    models: [BrowsedModel], db: StoreConnection, history: HistoryState
  ) throws -> RowEditOutcome {
    let dialect = db.dialect
    func quote(_ name: String) -> String { dialect.quoteIdentifier(name) }
    var changes: [(model: String, changes: ChangeSet.ModelChanges)] = []
    func add(_ model: String, _ change: ChangeSet.ModelChanges) {
      if let index = changes.firstIndex(where: { $0.model == model }) {
        changes[index].changes.inserted += change.inserted
        changes[index].changes.updated += change.updated
        changes[index].changes.deleted += change.deleted
      } else {
        changes.append((model, change))
      }
    }
    func exists(_ model: BrowsedModel, _ key: DatabaseValue) throws -> Bool {
      try db.queryFirst(
        "SELECT 1 FROM \(quote(model.table)) WHERE \(quote(model.primaryKey.name)) = "
          + "\(dialect.placeholder(1))", [key]
      ) { _ in true } ?? false
    }
    // Deletions first, with their delete rules, as a context's save applies them.
    var deleting: [String: [DatabaseValue]] = [:]
    for (position, (edit, model, _)) in planned.enumerated() where edit.action == .delete {
      guard let key = edit.key, try exists(model, key) else {
        throw RowEditError(
          edit: position, model: model.name,
          message:
            "`\(model.name)` has no row \(edit.key.map(idText) ?? "") (another save may have "
            + "deleted it). Nothing was saved.")
      }
      deleting[model.table, default: []].append(key)
    }
    let applier = DeleteRuleApplier(graph: graph(of: models), db: db)
    let rules = try applier.apply(deleting: deleting)
    for (table, keys) in deleting {
      guard let model = models.first(where: { $0.table == table }) else { continue }
      let (condition, arguments) = try storeKeyList(
        quote(model.primaryKey.name), keys, text: false, dialect: dialect)
      try db.run("DELETE FROM \(quote(table)) WHERE \(condition)", arguments)
      add(model.name, ChangeSet.ModelChanges(deleted: keys.map(idText)))
    }
    // Inserts and updates, each checked against the unique attributes before it is written.
    var insertedKeys: [DatabaseValue] = []
    for (position, (edit, model, given)) in planned.enumerated() where edit.action != .delete {
      do {
        var values = given
        let keyName = model.primaryKey.name
        var key: DatabaseValue
        if edit.action == .insert {
          if let index = values.firstIndex(where: { $0.0 == keyName }) {
            key = values[index].1
          } else {
            // Above the keys this batch deletes: a change set doesn't delete and insert one key.
            let deletedHere = (deleting[model.table] ?? []) + (rules.deleted[model.table] ?? [])
            key = try newKey(model, above: deletedHere, db: db)
            values.append((keyName, key))
          }
          if key == .null {
            throw RowEditError(
              model: model.name, property: keyName,
              message: "`\(model.name).\(keyName)` is the row's key: give one. Nothing was saved.")
          }
          if try exists(model, key) {
            throw RowEditError(
              model: model.name, property: keyName,
              message:
                "`\(model.name)` already has a row \(idText(key)). Give another key, or edit "
                + "that row. Nothing was saved.")
          }
          for column in model.columns
          where !column.isOptional && !values.contains(where: { $0.0 == column.name }) {
            throw RowEditError(
              model: model.name, property: column.name,
              message:
                "`\(model.name).\(column.name)` needs a value: it is not optional. Nothing was "
                + "saved.")
          }
        } else {
          key = edit.key ?? .null
          guard try exists(model, key) else {
            throw RowEditError(
              model: model.name,
              message:
                "`\(model.name)` has no row \(idText(key)) (another save may have deleted it). "
                + "Nothing was saved.")
          }
        }
        guard !values.isEmpty else { continue }
        try checkUnique(model, key: key, values: values, db: db)
        try checkReferences(model, values: values, models: models, db: db)
        if edit.action == .insert {
          let placeholders = values.indices.map { dialect.placeholder($0 + 1) }
          try db.run(
            "INSERT INTO \(quote(model.table)) (\(values.map { quote($0.0) }.joined(separator: ", "))) "
              + "VALUES (\(placeholders.joined(separator: ", ")))", values.map(\.1))
          insertedKeys.append(key)
          add(model.name, ChangeSet.ModelChanges(inserted: [idText(key)]))
        } else {
          let assignments = values.enumerated().map {
            "\(quote($0.element.0)) = \(dialect.placeholder($0.offset + 1))"
          }
          try db.run(
            "UPDATE \(quote(model.table)) SET \(assignments.joined(separator: ", ")) WHERE "
              + "\(quote(keyName)) = \(dialect.placeholder(values.count + 1))",
            values.map(\.1) + [key])
          add(model.name, ChangeSet.ModelChanges(updated: [idText(key)]))
        }
      } catch var error as RowEditError {
        error.edit = position
        throw error
      }
    }
    do {
      if !rules.denials.isEmpty { try applier.checkDenials(rules) }
    } catch let error as StoreError where error.code == .deleteDenied {
      throw RowEditError(model: error.model, property: error.property, message: error.message)
    }
    if try db.hasForeignKeyViolations {
      throw RowEditError(
        message:
          "A row of this batch would refer to a row that does not exist. Nothing was saved.")
    }
    for (table, keys) in rules.deleted {
      let model = models.first(where: { $0.table == table })?.name ?? table
      add(model, ChangeSet.ModelChanges(deleted: keys.map(idText)))
    }
    for (table, keys) in rules.updated {
      let model = models.first(where: { $0.table == table })?.name ?? table
      add(model, ChangeSet.ModelChanges(updated: keys.map(idText)))
    }
    let date = Date()
    guard !changes.isEmpty else {
      return RowEditOutcome(
        changeSet: ChangeSet.empty(at: try ChangeHistory.latestToken(db)), insertedKeys: [])
    }
    let (token, _) = try ChangeHistory.record(changes, date: date, in: db, state: history)
    history.latest = token.rawValue
    var saved = SavedChanges()
    for (model, change) in changes { saved.add(change, model: model) }
    return RowEditOutcome(
      changeSet: ChangeSet(token: token, date: date, changes: saved), insertedKeys: insertedKeys)
  }

  /// The delete rules of the models as found (their tables' foreign keys).
  private static func graph(of models: [BrowsedModel]) -> RelationshipGraph {
    var attributes: [String: ModelAttributes] = [:]
    for model in models {
      var declared = ModelAttributes()
      declared.references = model.references.compactMap { reference in
        guard let target = models.first(where: { $0.name == reference.model }),
          let column = model.columns.first(where: { $0.name == reference.property })
        else { return nil }
        return ModelAttributes.Reference(
          model: model.name, table: model.table, column: reference.property,
          isOptional: column.isOptional, primaryKey: model.primaryKey.name,
          target: ObjectIdentifier(BrowsedRow.self), targetModel: target.name,
          targetTable: target.table, targetKey: target.primaryKey.name,
          deleteRule: DeleteRule(rawValue: reference.deleteRule) ?? .deny,
          comparesLikeSwift: target.primaryKey.storedKind == .text)
      }
      attributes[model.table] = declared
    }
    return RelationshipGraph(attributesByTable: attributes)
  }

  /// A key for a new row: a new UUID, or one more than the largest integer key.
  private static func newKey(
    _ model: BrowsedModel, above deleted: [DatabaseValue], db: StoreConnection
  ) throws -> DatabaseValue {
    let key = model.primaryKey
    switch key.storedKind {
    case .uuid:
      return .text(UUID().uuidString)
    case .integer:
      let largest = try db.queryFirst(
        "SELECT max(\(db.dialect.quoteIdentifier(key.name))) FROM "
          + db.dialect.quoteIdentifier(model.table)
      ) { $0.value(at: 0) }
      var next: Int64 = 1
      for case .integer(let number) in deleted + [largest ?? .null] { next = max(next, number + 1) }
      return .integer(next)
    default:
      throw RowEditError(
        model: model.name, property: key.name,
        message:
          "`\(model.name).\(key.name)` is the row's key: give one for the new row. Nothing was "
          + "saved.")
    }
  }

  /// Refuses values another row holds under a unique attribute.
  private static func checkUnique(
    _ model: BrowsedModel, key: DatabaseValue, values: [(String, DatabaseValue)],
    db: StoreConnection
  ) throws {
    let dialect = db.dialect
    for index in model.indexes where index.unique {
      guard index.columns.contains(where: { name in values.contains { $0.0 == name } }),
        index.columns != [model.primaryKey.name]
      else { continue }
      // The row's values after the edit: given ones, else stored ones.
      var row: [DatabaseValue] = []
      for name in index.columns {
        if let given = values.first(where: { $0.0 == name }) {
          row.append(given.1)
        } else {
          let stored = try db.queryFirst(
            "SELECT \(dialect.quoteIdentifier(name)) FROM \(dialect.quoteIdentifier(model.table)) "
              + "WHERE \(dialect.quoteIdentifier(model.primaryKey.name)) = "
              + dialect.placeholder(1), [key]
          ) { $0.value(at: 0) }
          row.append(stored ?? .null)
        }
      }
      if row.contains(.null) { continue }
      // Text compares as the unique index compares it: like Swift's `==` ("Cafe\u{301}" is
      // "Café").
      let conditions = index.columns.enumerated().map { offset, name in
        let column = dialect.quoteIdentifier(name)
        let value = dialect.placeholder(offset + 1)
        guard model.columns.first(where: { $0.name == name })?.storedKind == .text,
          let left = dialect.swiftStringComparable(column),
          let right = dialect.swiftStringComparable(value)
        else { return "\(column) = \(value)" }
        return "\(left) = \(right)"
      }
      let holder = try db.queryFirst(
        "SELECT \(dialect.quoteIdentifier(model.primaryKey.name)) FROM "
          + "\(dialect.quoteIdentifier(model.table)) WHERE \(conditions.joined(separator: " AND ")) "
          + "AND \(dialect.quoteIdentifier(model.primaryKey.name)) <> "
          + dialect.placeholder(index.columns.count + 1), row + [key]
      ) { $0.value(at: 0) }
      if let holder {
        let names = index.columns.map { "`\($0)`" }.joined(separator: ", ")
        throw RowEditError(
          model: model.name,
          property: index.columns.first(where: { name in values.contains { $0.0 == name } }),
          message:
            "`\(model.name)` \(idText(holder)) already holds this \(names): "
            + "\(index.columns.count == 1 ? "it is" : "they are") unique. Nothing was saved.")
      }
    }
  }

  /// Refuses a reference to a row that does not exist (the batch's own rows count: they are
  /// written in order).
  private static func checkReferences(
    _ model: BrowsedModel, values: [(String, DatabaseValue)], models: [BrowsedModel],
    db: StoreConnection
  ) throws {
    let dialect = db.dialect
    for reference in model.references {
      guard let value = values.first(where: { $0.0 == reference.property })?.1, value != .null,
        let target = models.first(where: { $0.name == reference.model })
      else { continue }
      let found =
        try db.queryFirst(
          "SELECT 1 FROM \(dialect.quoteIdentifier(target.table)) WHERE "
            + "\(dialect.quoteIdentifier(target.primaryKey.name)) = \(dialect.placeholder(1))",
          [value]
        ) { _ in true } ?? false
      if !found {
        throw RowEditError(
          model: model.name, property: reference.property,
          message:
            "`\(model.name).\(reference.property)` refers to `\(target.name)` \(idText(value)), "
            + "which does not exist. Nothing was saved.")
      }
    }
  }
}
