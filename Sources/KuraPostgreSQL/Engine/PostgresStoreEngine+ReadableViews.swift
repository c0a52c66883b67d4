import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreEngine {
    // MARK: Readable views

    /// The schema of the store's readable views: the store's schema's name and `_readable`
    /// (`public_readable` for a store in `public`), fitted to PostgreSQL's names.
    package static let readableSchemaSQL = "SELECT current_schema() || '_readable'"

    /// The version of the views' definitions, part of the fingerprint recorded on the schema:
    /// a store whose views were made by another version gets them again.
    package static let readableViewsVersion = "kura readable views 1"

    /// Makes the readable views of every model of the store when they are missing or no longer
    /// match the models (`kura_models`): in a schema of their own, one view per model table,
    /// named as the table, with the same rows and columns — dates (seconds since 2001) as
    /// `timestamptz`, UUIDs (text) as `uuid`, booleans as `boolean`, references (a column
    /// named after the reference, holding the target's id) as the target's id type. Runs in
    /// a schema change's transaction, after it changed the tables: the views are dropped and
    /// made again (so views of removed models go) only when their definitions changed. A role
    /// that may not create a schema in the database gets no views; the store works the same.
    package static func refreshReadableViews(_ db: PostgresConnection) throws {
      let hasModels =
        try db.queryFirst("SELECT to_regclass('kura_models') IS NOT NULL") {
          $0.int64(at: 0) != 0
        } ?? false
      guard hasModels, let schema = try db.queryFirst(readableSchemaSQL, row: { $0.string(at: 0) })
      else { return }
      let views = try readableViewDefinitions(schema: schema, db)
      let fingerprint = ([readableViewsVersion] + views).joined(separator: ";\n")
      let current =
        try db.queryFirst(
          "SELECT obj_description(n.oid, 'pg_namespace') = md5(?) FROM "
            + "pg_catalog.pg_namespace n WHERE n.nspname = ?",
          [.text(fingerprint), .text(PostgresIdentifier.fitted(schema))]
        ) { $0.int64(at: 0) != 0 } ?? false
      if current { return }
      let digest = try db.queryFirst("SELECT md5(?)", [.text(fingerprint)]) { $0.string(at: 0) }
      do {
        try db.savepoint {
          try db.execute("DROP SCHEMA IF EXISTS \(quoteIdentifier(schema)) CASCADE")
          try db.execute("CREATE SCHEMA \(quoteIdentifier(schema))")
          for view in views { try db.execute(view) }
          try db.execute(
            "COMMENT ON SCHEMA \(quoteIdentifier(schema)) IS \(quotedText(digest ?? ""))")
        }
      } catch let error as PostgresError where error.sqlState == "42501" {
        // Not allowed to create a schema (or drop one made by another role): no views.
        return
      }
    }

    /// Drops the readable views, before a table they read is dropped or a column's type changed
    /// (PostgreSQL refuses both while a view depends on it); the schema change's end makes them
    /// again (``refreshReadableViews(_:)``).
    package static func dropReadableViews(_ db: PostgresConnection) throws {
      guard let schema = try db.queryFirst(readableSchemaSQL, row: { $0.string(at: 0) }) else {
        return
      }
      try db.execute("DROP SCHEMA IF EXISTS \(quoteIdentifier(schema)) CASCADE")
    }

    /// `CREATE VIEW` statements of the readable views, one per model table that exists, in
    /// table order.
    package static func readableViewDefinitions(schema: String, _ db: PostgresConnection) throws
      -> [String]
    {
      let records = try db.query(
        "SELECT m.table_name, m.columns FROM kura_models m ORDER BY m.table_name"
      ) { (table: $0.string(at: 0), columns: $0.string(at: 1)) }
      var views: [String] = []
      for record in records {
        let existing = Set(
          try db.query(
            "SELECT a.attname "
              + inSchema(joining: "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid ")
              + " AND c.relname = ? AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped",
            [stored(record.table)]
          ) { $0.string(at: 0) })
        guard !existing.isEmpty,
          let columns = try? JSONDecoder().decode(
            [StoreRecords.Column].self, from: Data(record.columns.utf8))
        else { continue }
        let expressions = columns.filter { existing.contains(PostgresIdentifier.fitted($0.name)) }
          .map { readableExpression(column: $0.name, kind: ColumnKind(rawValue: $0.kind)) }
        guard !expressions.isEmpty else { continue }
        views.append(
          "CREATE VIEW \(quoteIdentifier(schema)).\(quoteIdentifier(record.table)) AS SELECT "
            + expressions.joined(separator: ", ") + " FROM " + quoteIdentifier(record.table))
      }
      return views
    }

    /// The view's column for a stored column of `kind`, under the column's name.
    package static func readableExpression(column: String, kind: ColumnKind?) -> String {
      let name = quoteIdentifier(column)
      switch kind {
      // Seconds since 2001-01-01 00:00:00 UTC (Foundation's reference date), 978,307,200 s
      // after the Unix epoch.
      // NaN, which no timestamp is, shows as NULL.
      case .date?:
        return "CASE WHEN \(name) = 'NaN' THEN NULL ELSE to_timestamp(\(name) + 978307200) END "
          + "AS \(name)"
      case .uuid?: return "CAST(\(name) AS uuid) AS \(name)"
      case .bool?: return "CAST(\(name) AS boolean) AS \(name)"
      default: return name
      }
    }
  }
#endif
