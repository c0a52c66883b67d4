import Foundation
import KuraBase
import KuraSQLite

/// What moving one existing table to its model's current schema takes: nothing, cheap
/// `ALTER TABLE`s (renames and added columns), or a copy into a rebuilt table.
package struct TableMigration {
  /// A column of the existing table.
  package struct StoredColumn {
    package var name: String
    package var type: String
    package var notNull: Bool
    package var kind: ColumnKind?
  }

  package enum Plan {
    case unchanged
    /// Renames (old, new), then added columns with their definitions.
    case alter(renames: [(String, String)], additions: [String], descriptions: [String])
    /// Copies every row into a new table: one select expression per new column.
    case rebuild(expressions: [String], descriptions: [String])
  }

  package let schema: ModelSchema
  package let attributes: ModelAttributes
  package let fileName: String
  /// The store file, for errors; `nil` in memory.
  package var url: URL? = nil
  /// Whether columns holding values may be dropped: only in a declared step (a migration
  /// plan's stage, or `kura store migrate --allow-data-loss`).
  package var allowsDataLoss = false

  /// Reads the existing table and decides; throws ``StoreError/Code/migrationRefused`` for a
  /// change that could lose data.
  package func plan(_ db: StoreConnection) throws -> Plan {
    let engine = db.engine
    let stored = try storedColumns(db)
    var byName: [String: StoredColumn] = [:]
    for column in stored { byName[column.name] = column }
    var used = Set<String>()
    var expressions: [String] = []
    var renames: [(String, String)] = []
    var additions: [String] = []
    var descriptions: [String] = []
    var needsRebuild = false
    for (index, column) in schema.columns.enumerated() {
      let isKey = index == schema.primaryKeyIndex
      var source: StoredColumn?
      if let same = byName[column.name] {
        source = same
      } else if let old = attributes.renamedFrom[column.name], let renamed = byName[old] {
        source = renamed
        renames.append((old, column.name))
        descriptions.append("renaming \(old) to \(column.name)")
      }
      guard let source else {
        if isKey { throw refusal(column.name, "is a new primary key") }
        if column.isOptional {
          additions.append(engine.columnDefinition(column))
          expressions.append("NULL")
        } else if let value = attributes.defaults[column.name] {
          let literal = try literal(value, for: column.name, engine)
          additions.append(engine.columnDefinition(column) + " DEFAULT " + literal)
          expressions.append(literal)
        } else {
          throw refusal(
            column.name,
            "is new, is not optional and has no default value, so the stored rows would have no "
              + "value for it")
        }
        descriptions.append("adding \(column.name)")
        continue
      }
      used.insert(source.name)
      var expression = quoteIdentifier(source.name)
      // A table Kura did not record holds what its declared type says; same SQL type, same kind.
      let storedKind =
        source.kind
        ?? (source.type == engine.columnType(column.kind)
          ? column.kind : engine.columnKind(ofDeclaredType: source.type))
      if storedKind != column.kind {
        guard let storedKind, Self.widens(from: storedKind, to: column.kind) else {
          throw refusal(
            column.name,
            "changed from \(storedKind?.rawValue ?? source.type) to \(column.kind.rawValue), "
              + "which is not a widening, so stored values could be lost")
        }
        let real = engine.columnType(.real)
        if engine.columnType(column.kind) == real && engine.columnType(storedKind) != real
          && storedKind != .bool
        {
          try checkExactAsDouble(source.name, property: column.name, db)
        }
        expression = engine.widen(expression, from: storedKind, to: column.kind)
        needsRebuild = true
        descriptions.append("widening \(column.name) to \(column.kind.rawValue)")
      }
      if source.notNull && column.isOptional && !isKey {
        needsRebuild = true
        descriptions.append("making \(column.name) optional")
      } else if !source.notNull && !column.isOptional && !isKey {
        if let value = attributes.defaults[column.name] {
          expression =
            "coalesce(\(expression), \(try literal(value, for: column.name, engine)))"
        } else {
          let nulls =
            try db.queryFirst(
              "SELECT count(*) FROM \(schema.quotedTable) WHERE \(quoteIdentifier(source.name)) "
                + "IS NULL"
            ) { $0.int64(at: 0) } ?? 0
          if nulls > 0 {
            throw refusal(
              column.name,
              "is no longer optional but \(nulls) stored \(nulls == 1 ? "row has" : "rows have") "
                + "no value for it (declare `.defaultValue` for them)")
          }
        }
        needsRebuild = true
        descriptions.append("making \(column.name) required")
      }
      expressions.append(expression)
    }
    let removed = stored.map(\.name).filter { !used.contains($0) }
    if !removed.isEmpty && !allowsDataLoss {
      var populated: [String] = []
      for name in removed {
        let values =
          try db.queryFirst(
            "SELECT EXISTS (SELECT 1 FROM \(schema.quotedTable) WHERE \(quoteIdentifier(name)) "
              + "IS NOT NULL)"
          ) { $0.int64(at: 0) } ?? 0
        if values > 0 { populated.append(name) }
      }
      if !populated.isEmpty { throw unknownColumns(populated) }
    }
    if !removed.isEmpty {
      needsRebuild = true
      descriptions.append("removing \(removed.joined(separator: ", "))")
    }
    // A text key compared by bytes (format 1): rebuilt to compare like Swift's `==`, unless two
    // stored ids are equal that way.
    if schema.keyComparesLikeSwift, try !db.textKeyComparesLikeSwift(table: schema.tableName) {
      let key = schema.primaryKey.name
      let equal = try db.equivalentTextKeys(table: schema.tableName, key: key)
      if !equal.isEmpty {
        throw Self.equivalentKeysRefusal(
          model: schema.modelName, key: key, equal: equal, url: url, file: fileName)
      }
      needsRebuild = true
      descriptions.append("comparing \(schema.primaryKey.name) like Swift's ==")
    }
    if try foreignKeysDiffer(db) {
      needsRebuild = true
      descriptions.append("declaring references")
    }
    if needsRebuild { return .rebuild(expressions: expressions, descriptions: descriptions) }
    if renames.isEmpty && additions.isEmpty { return .unchanged }
    return .alter(renames: renames, additions: additions, descriptions: descriptions)
  }

  private func storedColumns(_ db: StoreConnection) throws -> [StoredColumn] {
    let recorded =
      try db.recordedColumnsText(table: schema.tableName, model: schema.storedName).map {
        try StoreSetup.recordedColumns($0, model: schema.modelName, url: url, file: fileName)
      } ?? []
    var kinds: [String: ColumnKind] = [:]
    for column in recorded { kinds[column.name] = ColumnKind(rawValue: column.kind) }
    return try db.tableColumns(schema.tableName).map { column in
      StoredColumn(
        name: column.name, type: column.type.uppercased(),
        notNull: column.notNull || column.primaryKey, kind: kinds[column.name])
    }
  }

  private func foreignKeysDiffer(_ db: StoreConnection) throws -> Bool {
    let stored = try db.foreignKeys(of: schema.tableName).map {
      "\($0.column)>\($0.targetTable)>\($0.onDelete)"
    }
    let wanted = attributes.references.compactMap { reference -> String? in
      guard let action = reference.deleteRule.foreignKeyAction else { return nil }
      return "\(reference.column)>\(reference.targetTable)>\(action)"
    }
    return Set(stored) != Set(wanted)
  }

  /// Whether every value of `old` is a value of `new` (a change Kura migrates by itself).
  package static func widens(from old: ColumnKind, to new: ColumnKind) -> Bool {
    switch (old, new) {
    case (.integer, .real), (.bool, .integer), (.bool, .real), (.uuid, .text), (.url, .text):
      return true
    default:
      return false
    }
  }

  /// Refuses widening integers to `Double` when a stored integer has no exact `Double` (beyond
  /// 2^53 not every integer has one: 9007199254740993 would become 9007199254740992).
  private func checkExactAsDouble(_ column: String, property: String, _ db: StoreConnection)
    throws
  {
    let limit: Int64 = 1 << 53
    let quoted = quoteIdentifier(column)
    let statement = try db.prepare(
      "SELECT \(quoted) FROM \(schema.quotedTable) WHERE \(db.engine.integerTest(quoted)) AND "
        + "(\(quoted) > ? OR \(quoted) < ?)")
    try statement.bind([.integer(limit), .integer(-limit)])
    while try statement.step() {
      let value = statement.int64(at: 0)
      if Int64(exactly: Double(value)) != value {
        throw refusal(
          property,
          "changed from integer to real, but the stored value \(value) has no exact `Double` "
            + "(it would become \(Double(value))), so it would be changed")
      }
    }
  }

  /// A value written into SQL (a column's `DEFAULT` or a copy expression), valid for every
  /// value the engine has a literal for (see ``StoreEngine/literal(_:)``).
  private func literal(_ value: DatabaseValue, for property: String, _ engine: StoreEngine) throws
    -> String
  {
    if let literal = engine.literal(value) { return literal }
    if case .real(let number) = value, number.isNaN {
      throw refusal(
        property,
        "has the default value NaN, which a table definition can't hold (SQL stores NaN as NULL)")
    }
    throw refusal(
      property, "has a default value (\(value)) that a table definition can't hold")
  }

  /// The refusal of a table whose text key holds ids Swift's `==` calls equal (`equal`), stored
  /// by earlier versions while the key compared bytes.
  package static func equivalentKeysRefusal(
    model: String, key: String, equal: [String], url: URL?, file: String
  ) -> StoreError {
    StoreRecords.equivalentKeysRefusal(model: model, key: key, equal: equal, url: url, file: file)
  }

  /// `text` with every scalar outside ASCII written as `\u{…}`, so equivalent forms differ.
  package static func escaped(_ text: String) -> String { StoreRecords.escaped(text) }

  /// The error for stored columns holding values that the model does not declare (a store
  /// saved by a newer version of the app, or a property removed without a declared step).
  private func unknownColumns(_ names: [String]) -> StoreError {
    let list = names.map { "`\($0)`" }.joined(separator: ", ")
    let plural = names.count == 1 ? "column" : "columns"
    return StoreError(
      .schemaMismatch, model: schema.modelName, column: names.first, url: url,
      message:
        "Can't open store \(fileName) for model `\(schema.modelName)`: its table "
        + "`\(schema.tableName)` has \(plural) \(list) holding values that this version of "
        + "`\(schema.modelName)` doesn't declare (a newer version of the app may have added "
        + "\(names.count == 1 ? "it" : "them")). Nothing was changed. Open the store with the newer "
        + "app, or drop the data on purpose: a `SchemaMigrationPlan` stage, or "
        + "`kura store migrate --allow-data-loss`.")
  }

  private func refusal(_ property: String, _ why: String) -> StoreError {
    StoreError(
      .migrationRefused, model: schema.modelName, property: property,
      message:
        "Can't migrate store \(fileName): `\(schema.modelName).\(property)` \(why). Nothing was "
        + "changed. Make the change one Kura migrates by itself (an optional property, a "
        + "`.defaultValue(\\.\(property), …)` or `.renamed(\\.\(property), from: …)` "
        + "declaration in `\(schema.modelName).schema`), or declare a custom stage: "
        + "`MigrationStage.custom(fromVersion:toVersion:migrate:)` in a `SchemaMigrationPlan` "
        + "given to `ModelContainer(for:migrationPlan:configurations:)`.")
  }
}
