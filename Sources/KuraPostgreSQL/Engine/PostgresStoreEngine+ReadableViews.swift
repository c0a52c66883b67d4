import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreEngine {
    // MARK: Readable views

    /// The schema of the store's readable views: the store's schema's name and `_readable`
    /// (`public_readable` for a store in `public`), fitted to PostgreSQL's names.
    package static let readableSchemaSQL = "SELECT current_schema() || '_readable'"

    /// The version of the views' definitions, part of the marker each view's comment holds
    /// (``readableViewMarker(_:_:)``): a view made by another version is made again.
    package static let readableViewsVersion = "kura readable views 2"

    /// The comment of a view the schema change detached from its table
    /// (``detachReadableViews(_:)``), which the schema change's end makes again.
    static let detachedViewMarker = "kura readable view detached"

    /// A readable view: its name (the model table's) and the query it shows.
    package struct ReadableView: Equatable {
      /// The view's name, the model table's.
      package var name: String
      /// The `SELECT` the view shows.
      package var query: String
    }

    /// Makes the readable views of every model of the store when they are missing or no longer
    /// match the models (`kura_models`): in a schema of their own, one view per model table,
    /// named as the table, with the same rows and columns — dates (seconds since 2001) as
    /// `timestamptz`, UUIDs (text) as `uuid`, booleans as `boolean`, references (a column
    /// named after the reference, holding the target's id) as the target's id type. Runs in
    /// a schema change's transaction, after it changed the tables. Each view's comment records
    /// its definition (``readableViewMarker(_:_:)``); only a view whose definition changed is
    /// touched, so grants, and views of the user's that read it, stay:
    /// - A view whose columns stay, or only gain columns at the end, is replaced in place
    ///   (`CREATE OR REPLACE VIEW`): its privileges and the views reading it are kept.
    /// - A view that loses, renames or changes the type of a column is dropped and made again,
    ///   its grants (`GRANT … ON` the view, from its ACL) applied again. When another view
    ///   (or any object) depends on it, the schema change is refused instead, naming them —
    ///   never dropped along (``dropReadableView(_:schema:because:_:)``).
    /// - The view of a model no longer in the store is dropped, refused the same way.
    ///
    /// Views of the user's in the schema (no Kura comment, not named after a table of the
    /// store) are left alone. A role that may not create the schema gets no views; the store
    /// works the same.
    package static func refreshReadableViews(_ db: PostgresConnection) throws {
      let hasModels =
        try db.queryFirst("SELECT to_regclass('kura_models') IS NOT NULL") {
          $0.int64(at: 0) != 0
        } ?? false
      guard hasModels, let schema = try db.queryFirst(readableSchemaSQL, row: { $0.string(at: 0) })
      else { return }
      let views = try readableViewDefinitions(db)
      do {
        try db.savepoint {
          try db.execute("CREATE SCHEMA IF NOT EXISTS \(quoteIdentifier(schema))")
          let existing = try kurasReadableViews(schema: schema, db)
          for view in views {
            let marker = try readableViewMarker(view, db)
            if let comment = existing[PostgresIdentifier.fitted(view.name)], comment == marker {
              continue
            }
            try putReadableView(
              view, schema: schema, exists: existing[PostgresIdentifier.fitted(view.name)] != nil,
              db)
            try db.execute(
              "COMMENT ON VIEW \(qualifiedView(view.name, schema: schema)) IS "
                + quotedText(marker))
          }
          let wanted = Set(views.map { PostgresIdentifier.fitted($0.name) })
          for name in existing.keys.sorted() where !wanted.contains(name) {
            try dropReadableView(
              name, schema: schema, because: "its model is no longer in the store", db)
          }
        }
      } catch let error as PostgresError where error.sqlState == "42501" {
        // Not allowed to create the schema (or replace views made by another role): no views.
        return
      }
    }

    /// What a view's comment records: ``readableViewsVersion`` and the MD5 of its query.
    package static func readableViewMarker(_ view: ReadableView, _ db: PostgresConnection) throws
      -> String
    {
      let digest = try db.queryFirst("SELECT md5(?)", [.text(view.query)]) { $0.string(at: 0) }
      return readableViewsVersion + " " + (digest ?? "")
    }

    /// `"schema"."name"`, each fitted as the catalog holds it (the text goes into parameters
    /// too, which the driver does not fit).
    static func qualifiedView(_ name: String, schema: String) -> String {
      quoteIdentifier(PostgresIdentifier.fitted(schema)) + "."
        + quoteIdentifier(PostgresIdentifier.fitted(name))
    }

    /// The views of `schema` that Kura made, by name, with their comments: those whose comment
    /// is Kura's, and those without a comment named after a table of the store (made by an
    /// earlier version, which recorded no comment on views).
    static func kurasReadableViews(schema: String, _ db: PostgresConnection) throws
      -> [String: String?]
    {
      let rows = try db.query(
        "SELECT c.relname, obj_description(c.oid, 'pg_class') FROM pg_catalog.pg_class c JOIN "
          + "pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND "
          + "c.relkind = 'v' AND (obj_description(c.oid, 'pg_class') LIKE 'kura readable view%' "
          + "OR (obj_description(c.oid, 'pg_class') IS NULL AND EXISTS (SELECT 1 FROM "
          + "pg_catalog.pg_class t JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace "
          + "WHERE tn.nspname = current_schema() AND t.relkind = 'r' AND t.relname = c.relname)))",
        [.text(PostgresIdentifier.fitted(schema))]
      ) { row -> (String, String?) in
        (row.string(at: 0), row.isNull(at: 1) ? nil : row.string(at: 1))
      }
      return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// Makes `view`, replacing the one there (``refreshReadableViews(_:)``): in place when
    /// PostgreSQL allows (the columns stay, or only gain some at the end), else dropped
    /// (refused when something depends on it) and made again with its grants.
    static func putReadableView(
      _ view: ReadableView, schema: String, exists: Bool, _ db: PostgresConnection
    ) throws {
      let name = qualifiedView(view.name, schema: schema)
      guard exists else {
        try db.execute("CREATE VIEW \(name) AS \(view.query)")
        return
      }
      let changed: PostgresError
      do {
        try db.savepoint { try db.execute("CREATE OR REPLACE VIEW \(name) AS \(view.query)") }
        return
      } catch let error as PostgresError where error.sqlState == "42P16" {
        // It loses, renames or retypes a column, which PostgreSQL does not replace in place.
        changed = error
      }
      let grants = try db.query(
        "SELECT 'GRANT ' || a.privilege_type || ' ON ' || ? || ' TO ' || CASE WHEN "
          + "a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) "
          + "END || CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END FROM "
          + "pg_catalog.pg_class c, aclexplode(c.relacl) a WHERE c.oid = CAST(? AS regclass) AND "
          + "a.grantee <> c.relowner ORDER BY 1", [.text(name), .text(name)]
      ) { $0.string(at: 0) }
      try dropReadableView(
        PostgresIdentifier.fitted(view.name), schema: schema,
        because: "its columns change (\(changed.message))", db)
      try db.execute("CREATE VIEW \(name) AS \(view.query)")
      for grant in grants { try db.execute(grant) }
    }

    /// Drops the readable view `name` of `schema`; when another object depends on it (a view
    /// of the user's), refuses, naming them and `reason` — PostgreSQL would drop them along
    /// (`CASCADE`) or refuse without saying what Kura was doing.
    ///
    /// - Throws: ``PostgresError`` with SQLSTATE `2BP01` (dependent objects still exist) when
    ///   something depends on the view; the schema change is rolled back.
    static func dropReadableView(
      _ name: String, schema: String, because reason: String, _ db: PostgresConnection
    ) throws {
      let view = qualifiedView(name, schema: schema)
      let dependents = try db.query(
        "SELECT DISTINCT CASE WHEN d.classid = 'pg_catalog.pg_rewrite'::regclass THEN (SELECT "
          + "CASE dc.relkind WHEN 'm' THEN 'materialized view ' ELSE 'view ' END || "
          + "quote_ident(dn.nspname) || '.' || quote_ident(dc.relname) FROM "
          + "pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class dc ON dc.oid = r.ev_class JOIN "
          + "pg_catalog.pg_namespace dn ON dn.oid = dc.relnamespace WHERE r.oid = d.objid) ELSE "
          + "pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid) END FROM "
          + "pg_catalog.pg_depend d WHERE d.refclassid = 'pg_catalog.pg_class'::regclass AND "
          + "d.refobjid = CAST(? AS regclass) AND d.deptype = 'n' AND NOT (d.classid = "
          + "'pg_catalog.pg_rewrite'::regclass AND (SELECT r.ev_class FROM pg_catalog.pg_rewrite "
          + "r WHERE r.oid = d.objid) = d.refobjid) ORDER BY 1", [.text(view)]
      ) { $0.string(at: 0) }
      guard dependents.isEmpty else {
        let list = dependents.map { "`\($0)`" }.joined(separator: ", ")
        throw PostgresError(
          code: .other, sqlState: "2BP01",
          message:
            "can't remake the readable view `\(schema).\(name)`: \(reason), and \(list) "
            + "\(dependents.count == 1 ? "depends" : "depend") on it, which Kura does not drop. "
            + "Nothing was changed; drop \(dependents.count == 1 ? "it" : "them"), open the "
            + "store again, then make \(dependents.count == 1 ? "it" : "them") again",
          server: db.location.description, sql: "DROP VIEW \(view)")
      }
      try db.execute("DROP VIEW \(view)")
    }

    /// Detaches the readable views from their tables, before a table they read is dropped or
    /// a column's type changed (PostgreSQL refuses both while a view depends on it): each is
    /// replaced in place by a view of the same columns and no rows, which reads no table, so
    /// its grants and the views of the user's that read it stay. The schema change's end makes
    /// them again (``refreshReadableViews(_:)``).
    package static func detachReadableViews(_ db: PostgresConnection) throws {
      guard let schema = try db.queryFirst(readableSchemaSQL, row: { $0.string(at: 0) }) else {
        return
      }
      for (name, comment) in try kurasReadableViews(schema: schema, db).sorted(by: {
        $0.key < $1.key
      }) where comment != detachedViewMarker {
        let view = qualifiedView(name, schema: schema)
        let columns = try db.query(
          "SELECT 'CAST(NULL AS ' || pg_catalog.format_type(a.atttypid, a.atttypmod) || ')' || "
            + "CASE WHEN co.oid IS NULL THEN '' ELSE ' COLLATE ' || quote_ident(cn.nspname) || "
            + "'.' || quote_ident(co.collname) END || ' AS ' || quote_ident(a.attname) FROM "
            + "pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_collation co ON co.oid = "
            + "a.attcollation LEFT JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace "
            + "WHERE a.attrelid = CAST(? AS regclass) AND a.attnum > 0 AND NOT a.attisdropped "
            + "ORDER BY a.attnum", [.text(view)]
        ) { $0.string(at: 0) }
        guard !columns.isEmpty else { continue }
        try db.execute(
          "CREATE OR REPLACE VIEW \(view) AS SELECT \(columns.joined(separator: ", ")) "
            + "WHERE false")
        try db.execute("COMMENT ON VIEW \(view) IS \(quotedText(detachedViewMarker))")
      }
    }

    /// The readable views, one per model table that exists, in table order.
    package static func readableViewDefinitions(_ db: PostgresConnection) throws
      -> [ReadableView]
    {
      let records = try db.query(
        "SELECT m.table_name, m.columns FROM kura_models m ORDER BY m.table_name"
      ) { (table: $0.string(at: 0), columns: $0.string(at: 1)) }
      var views: [ReadableView] = []
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
          ReadableView(
            name: record.table,
            query: "SELECT " + expressions.joined(separator: ", ") + " FROM "
              + quoteIdentifier(record.table)))
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
