import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreEngine {
    // MARK: Introspection

    /// The catalog rows of the connection's schema: `FROM <catalog> JOIN pg_namespace n ON
    /// n.oid = <namespace> <joins> WHERE n.nspname = current_schema()`, further conditions
    /// following with `AND`. By default the rows of `pg_class`, as `c`.
    package static func inSchema(
      _ catalog: String = "pg_catalog.pg_class c", namespace: String = "c.relnamespace",
      joining joins: String = ""
    ) -> String {
      "FROM \(catalog) JOIN pg_catalog.pg_namespace n ON n.oid = \(namespace) \(joins)"
        + "WHERE n.nspname = current_schema()"
    }

    package static func tableExists(_ name: String, _ db: PostgresConnection) throws -> Bool {
      try db.queryFirst(
        "SELECT 1 \(inSchema()) AND c.relname = ? AND c.relkind IN ('r', 'p')", [stored(name)]
      ) { _ in true } ?? false
    }

    /// Tables, views, sequences and the indexes not made by a constraint, by their full names.
    package static func schemaObjects(_ db: PostgresConnection) throws -> [(
      kind: String, name: String
    )] {
      let objects = try db.query(
        "SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'i' THEN "
          + "'index' ELSE 'view' END, c.relname, obj_description(c.oid, 'pg_class') "
          + "\(inSchema()) AND c.relkind IN ('r', 'p', 'i', 'v', 'm') AND NOT EXISTS (SELECT "
          + "1 FROM pg_catalog.pg_constraint k WHERE k.conindid = c.oid AND c.relkind = 'i') "
          + "ORDER BY c.relname"
      ) { row in
        (
          kind: row.string(at: 0), name: row.string(at: 1),
          comment: row.isNull(at: 2) ? nil : row.string(at: 2)
        )
      }
      let full = try PostgresFullNames(of: objects.map(\.name), db)
      return objects.map { object in
        let name =
          object.kind == "index"
          ? indexName(object.name, comment: object.comment) : full[object.name]
        return (object.kind, name)
      }
    }

    package static func tableColumns(_ table: String, _ db: PostgresConnection) throws
      -> [StoreColumnInfo]
    {
      let columns = try db.query(
        "SELECT a.attname, upper(format_type(a.atttypid, a.atttypmod)) || CASE WHEN "
          + "co.collname = 'kura_swift' THEN ' COLLATE KURA_SWIFT' WHEN co.collname = 'C' AND "
          + "a.atttypid = 'text'::regtype THEN ' COLLATE \"C\"' ELSE '' END, a.attnotnull, "
          + "EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND "
          + "i.indisprimary AND a.attnum = ANY (i.indkey::int2[])) "
          + inSchema(
            joining: "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND "
              + "NOT a.attisdropped LEFT JOIN pg_catalog.pg_collation co ON "
              + "co.oid = a.attcollation ")
          + " AND c.relname = ? AND c.relkind IN ('r', 'p') "
          + "AND a.attname <> '\(rowColumn)' "
          + "ORDER BY a.attnum",
        [stored(table)]
      ) { row in
        StoreColumnInfo(
          name: row.string(at: 0), type: row.string(at: 1), notNull: row.int64(at: 2) != 0,
          primaryKey: row.int64(at: 3) != 0)
      }
      let full = try PostgresFullNames(of: columns.map(\.name), db)
      return columns.map { column in
        var column = column
        column.name = full[column.name]
        return column
      }
    }

    /// The foreign keys of `table` (one column each, as Kura makes them): column, target
    /// table, target column, delete action, and the constraint's name and definition.
    package static func foreignKeyConstraints(of table: String, _ db: PostgresConnection) throws
      -> [(key: StoreForeignKey, name: String, definition: String)]
    {
      let keys = try db.query(
        "SELECT a.attname, t.relname, ta.attname, CASE k.confdeltype WHEN 'c' THEN 'CASCADE' "
          + "WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' WHEN 'r' THEN 'RESTRICT' ELSE "
          + "'NO ACTION' END, k.conname, pg_get_constraintdef(k.oid) "
          + inSchema(
            "pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid",
            joining: "JOIN pg_catalog.pg_class t ON t.oid = k.confrelid "
              + "JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND "
              + "a.attnum = k.conkey[1] JOIN pg_catalog.pg_attribute ta ON "
              + "ta.attrelid = k.confrelid AND ta.attnum = k.confkey[1] ")
          + " AND k.contype = 'f' AND c.relname = ? "
          + "ORDER BY k.conname",
        [stored(table)]
      ) { row in
        (
          StoreForeignKey(
            column: row.string(at: 0), targetTable: row.string(at: 1),
            targetColumn: row.string(at: 2), onDelete: row.string(at: 3)),
          row.string(at: 4), row.string(at: 5)
        )
      }
      let full = try PostgresFullNames(
        of: keys.flatMap { [$0.0.column, $0.0.targetTable, $0.0.targetColumn ?? ""] }, db)
      return keys.map { key, name, definition in
        let mapped = StoreForeignKey(
          column: full[key.column], targetTable: full[key.targetTable],
          targetColumn: key.targetColumn.map { full[$0] }, onDelete: key.onDelete)
        return (mapped, name, definition)
      }
    }

    package static func foreignKeys(_ table: String, _ db: PostgresConnection) throws
      -> [StoreForeignKey]
    {
      try foreignKeyConstraints(of: table, db).map(\.key)
    }

    /// The joins from a table `c` to its indexes but its primary key's (`i`, with their
    /// `pg_class` rows as `ic`).
    package static let indexJoins =
      "JOIN pg_catalog.pg_index i ON i.indrelid = c.oid AND NOT i.indisprimary "
      + "JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid "

    /// The indexes of `table` but its primary key's; a column indexed as `kura_key(column)` is
    /// reported as the column.
    package static func indexes(_ table: String, _ db: PostgresConnection) throws
      -> [StoreIndexInfo]
    {
      let list = try db.query(
        "SELECT ic.relname, i.indisunique, i.indexrelid::bigint, i.indnatts, "
          + "obj_description(ic.oid, 'pg_class') "
          + inSchema(joining: indexJoins) + " AND c.relname = ? ORDER BY ic.relname",
        [stored(table)]
      ) { row in
        (
          indexName(row.string(at: 0), comment: row.isNull(at: 4) ? nil : row.string(at: 4)),
          row.int64(at: 1) != 0, row.int64(at: 2), row.int64(at: 3)
        )
      }
      let indexes = try list.map { name, unique, oid, count in
        let columns = try db.query(
          "SELECT pg_get_indexdef(CAST(? AS bigint)::oid, k::int, true) FROM "
            + "generate_series(1, CAST(? AS int)) AS k ORDER BY k",
          [.integer(oid), .integer(count)]
        ) { row -> String in
          var column = row.string(at: 0)
          if column.hasPrefix("kura_key("), column.hasSuffix(")") {
            column = String(column.dropFirst("kura_key(".count).dropLast())
          }
          if column.hasPrefix("\""), column.hasSuffix("\""), column.count >= 2 {
            column = String(column.dropFirst().dropLast()).replacingOccurrences(
              of: "\"\"", with: "\"")
          }
          return column
        }
        return StoreIndexInfo(name: name, unique: unique, columns: columns)
      }
      let full = try PostgresFullNames(of: indexes.flatMap(\.columns), db)
      return indexes.map {
        StoreIndexInfo(name: $0.name, unique: $0.unique, columns: $0.columns.map { full[$0] })
      }
    }

    /// The indexes created by `CREATE INDEX` statements of the store, with that statement (the
    /// comment ``PostgresStoreConnection/execute(_:)`` gave them).
    package static func indexDefinitions(_ table: String, _ db: PostgresConnection) throws
      -> [(name: String, sql: String)]
    {
      try db.query(
        "SELECT ic.relname, obj_description(ic.oid, 'pg_class') "
          + inSchema(joining: indexJoins) + " AND c.relname = ? "
          + "AND obj_description(ic.oid, 'pg_class') IS NOT NULL",
        [stored(table)]
      ) { row in
        let sql = row.string(at: 1)
        return (name: indexName(row.string(at: 0), comment: sql), sql: sql)
      }
    }

    /// Every table of the schema with its foreign keys.
    package static func allForeignKeys(_ db: PostgresConnection) throws
      -> [(table: String, key: StoreForeignKey)]
    {
      let tables = try schemaObjects(db).filter { $0.kind == "table" }.map(\.name)
      var result: [(table: String, key: StoreForeignKey)] = []
      for table in tables {
        for key in try foreignKeys(table, db) { result.append((table, key)) }
      }
      return result
    }

    /// The condition on `table` (aliased `kura_row`) that its reference `key` points at nothing.
    package static func danglingCondition(_ key: StoreForeignKey) -> String {
      let column = "kura_row." + quoteIdentifier(key.column)
      let target = quoteIdentifier(key.targetTable)
      let targetColumn = quoteIdentifier(key.targetColumn ?? "id")
      return "\(column) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(target) AS kura_target WHERE "
        + "kura_target.\(targetColumn) = \(column))"
    }

    package static func foreignKeyViolations(_ db: PostgresConnection) throws
      -> [StoreForeignKeyViolation]
    {
      var violations: [StoreForeignKeyViolation] = []
      for (table, key) in try allForeignKeys(db) {
        let broken =
          try db.queryFirst(
            "SELECT 1 FROM \(quoteIdentifier(table)) AS kura_row WHERE \(danglingCondition(key)) "
              + "LIMIT 1"
          ) { _ in true } ?? false
        if broken {
          violations.append(StoreForeignKeyViolation(table: table, target: key.targetTable))
        }
      }
      return violations
    }

    package static func firstDanglingReference(
      in table: String, primaryKey: String, _ db: PostgresConnection
    ) throws -> StoreDanglingReference? {
      for key in try foreignKeys(table, db) {
        let found = try db.queryFirst(
          "SELECT kura_row.\(quoteIdentifier(primaryKey)), kura_row.\(quoteIdentifier(key.column)) "
            + "FROM \(quoteIdentifier(table)) AS kura_row WHERE \(danglingCondition(key)) LIMIT 1"
        ) { ($0.value(at: 0), $0.value(at: 1)) }
        if let (value, missing) = found {
          return StoreDanglingReference(
            key: value, column: key.column, target: key.targetTable, missing: missing)
        }
      }
      return nil
    }

    /// Whether deferred references written in the open transaction point at nothing: checks
    /// them now (`SET CONSTRAINTS ALL IMMEDIATE` in a savepoint), then defers them again. Any
    /// other failure (a lost connection, a cancelled statement) is thrown, never taken for "no
    /// violation" inside the transaction.
    package static func hasForeignKeyViolations(_ store: PostgresStoreConnection) throws -> Bool {
      let db = store.connection
      guard db.isInTransaction else { return false }
      if store.hasForeignKeys == nil {
        store.hasForeignKeys = try db.queryFirst(
          "SELECT EXISTS (SELECT 1 "
            + "\(inSchema("pg_catalog.pg_constraint k", namespace: "k.connamespace")) "
            + "AND k.contype = 'f')"
        ) { $0.int64(at: 0) != 0 }
      }
      if store.hasForeignKeys == false { return false }
      do {
        try db.savepoint { try db.execute("SET CONSTRAINTS ALL IMMEDIATE") }
        try db.execute("SET CONSTRAINTS ALL DEFERRED")
        return false
      } catch let error as PostgresError where error.code == .foreignKeyViolation {
        // The savepoint was rolled back, so the transaction goes on: defer the checks again.
        try db.execute("SET CONSTRAINTS ALL DEFERRED")
        return true
      }
    }

    /// The record of `model`, else the newest record of the table.
    package static func recordedColumnsText(table: String, model: String, _ db: PostgresConnection)
      throws -> String?
    {
      try db.queryFirst(
        "SELECT columns FROM kura_models WHERE table_name = ? ORDER BY model = ? DESC, "
          + "ctid DESC LIMIT 1",
        [.text(table), .text(model)]
      ) { $0.string(at: 0) }
    }

    /// Whether the key column of `table` has the Swift collation.
    package static func textKeyComparesLikeSwift(table: String, _ db: PostgresConnection) throws
      -> Bool
    {
      let key = try tableColumns(table, db).first { $0.primaryKey }
      guard let key, key.type.hasPrefix("TEXT") else { return true }
      return key.type == columnType(.text)
    }

    /// Up to 10 values of `key` that Swift's `==` calls equal to another.
    package static func equivalentTextKeys(table: String, key: String, _ db: PostgresConnection)
      throws
      -> [String]
    {
      let column = quoteIdentifier(key)
      return try db.query(
        "SELECT \(column) FROM \(quoteIdentifier(table)) WHERE kura_key(\(column)) = (SELECT "
          + "kura_key(\(column)) FROM \(quoteIdentifier(table)) GROUP BY 1 HAVING count(*) > 1 "
          + "LIMIT 1) LIMIT 10"
      ) { $0.string(at: 0) }
    }
  }
#endif
