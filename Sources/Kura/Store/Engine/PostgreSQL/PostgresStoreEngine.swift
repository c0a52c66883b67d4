#if canImport(CLibPQ)
  import Foundation

  /// The PostgreSQL engine of the model store: the SQL and the steps only PostgreSQL has, behind
  /// ``StoreEngine``, ``StoreConnection`` and ``StorePool`` (see ``StoreEngine`` for the
  /// contract).
  ///
  /// PostgreSQL specifics the store relies on:
  /// - Tables, functions and the collation live in the connection's `current_schema()`;
  ///   introspection reads `pg_catalog` for that schema.
  /// - Text as Swift compares it: `String` columns are `text COLLATE kura_swift`, an ICU
  ///   collation at identical strength with normalization on and `deterministic = false`, so
  ///   `=` (primary keys, references, `WHERE "id" = ?`) is exactly canonical equivalence, Swift's
  ///   `==`. Comparisons, ordering and text indexes go through `kura_key(text)` (the NFC form's
  ///   UTF-8 bytes: Swift's `<`), see ``PostgresDialect``.
  /// - Types: `Int` → `bigint`, `Bool` → `boolean` (conditions and Bool columns are one type,
  ///   as integers are on SQLite), `Double`/`Date` → `double precision`, `String` → `text`
  ///   (collated), UUID/URL/JSON → `text COLLATE "C"` (byte order: Swift's order of UUIDs,
  ///   whatever the database's default collation), `Data` → `bytea`.
  /// - Upserts are one statement of data-modifying `WITH` clauses: update the row with the same
  ///   id, else the row with the same unique values, else insert; it returns `kura_op` and the
  ///   row's key. Writers run in parallel: a save that meets another's uncommitted row (a unique
  ///   violation, a deadlock) is run again by the pool (``PostgresStorePool``).
  /// - `kura_history.token` is the writing transaction's id times ``tokensPerTransaction`` plus
  ///   the row's number in it: tokens grow with transaction ids, not commits, and readers read
  ///   only below the horizon (``horizonFunctionSQL``: every writer of the store with a smaller
  ///   id has ended), so a token that commits late is never skipped. `pg_notify`, sent by the
  ///   pool after the commit, wakes the listeners; `save_id` tells a lost commit's outcome.
  struct PostgresStoreEngine: StoreEngine {
    /// The name of the collation of `String` columns.
    static let collation = "kura_swift"

    // MARK: DDL

    /// The declared type of a column holding `kind` (uppercase, as introspection reports it).
    static func columnType(_ kind: ColumnKind) -> String {
      switch kind {
      case .integer: return "BIGINT"
      case .bool: return "BOOLEAN"
      case .real, .date: return "DOUBLE PRECISION"
      case .text: return "TEXT COLLATE KURA_SWIFT"
      // Ordered as bytes (Swift's order of UUIDs), whatever the database's default collation.
      case .uuid, .url, .json: return "TEXT COLLATE \"C\""
      case .blob: return "BYTEA"
      }
    }

    /// The kind of values a column of a table Kura did not record holds.
    static func columnKind(ofDeclaredType type: String) -> ColumnKind? {
      switch type.uppercased() {
      case "BIGINT", "INTEGER", "SMALLINT": return .integer
      case "BOOLEAN": return .bool
      case "DOUBLE PRECISION", "REAL", "NUMERIC": return .real
      case "TEXT COLLATE KURA_SWIFT", "TEXT COLLATE \"C\"": return .text
      case "TEXT", "CHARACTER VARYING": return .text
      case "BYTEA": return .blob
      default: return nil
      }
    }

    /// The hidden column numbering a table's rows in the order they were inserted (SQLite's
    /// rowid order, which fetches without a sort follow); introspection leaves it out.
    static let rowColumn = "kura_row"

    /// `"id" TEXT COLLATE KURA_SWIFT NOT NULL PRIMARY KEY` (ids Swift calls equal are one row),
    /// followed by the hidden ``rowColumn``.
    static func primaryKeyDefinition(_ schema: ModelSchema) -> String {
      PostgresStoreEngine().columnDefinition(schema.primaryKey) + " PRIMARY KEY, "
        + "\(rowColumn) BIGINT NOT NULL DEFAULT nextval('kura_row_numbers')"
    }

    /// `expression` converted to the column type of `kind`.
    static func cast(_ expression: String, to kind: ColumnKind) -> String {
      switch kind {
      case .text, .uuid, .url, .json: return "CAST(\(expression) AS TEXT)"
      default: return "CAST(\(expression) AS \(columnType(kind)))"
      }
    }

    /// The upsert of one row of `schema`: parameters `?1…?n` are its columns in order.
    static func upsertSQL(
      table: String, columns: [ColumnSchema], primaryKeyIndex: Int, uniqueConstraints: [[Int]]
    ) -> String {
      let names = columns.map { quoteIdentifier($0.name) }
      let key = names[primaryKeyIndex]
      let values = columns.indices.map { "?\($0 + 1)" }
      let insert =
        "INSERT INTO \(table) (\(names.joined(separator: ", "))) SELECT "
        + values.joined(separator: ", ")
      let others = columns.indices.filter { $0 != primaryKeyIndex }
      guard !others.isEmpty else {
        return "WITH kura_insert AS (\(insert) WHERE NOT EXISTS (SELECT 1 FROM \(table) WHERE "
          + "\(key) = ?\(primaryKeyIndex + 1)) RETURNING \(key)) "
          + "SELECT 1 AS kura_op, \(key) FROM kura_insert"
      }
      let set = others.map { "\(names[$0]) = ?\($0 + 1)" }.joined(separator: ", ")
      var clauses: [String] = []
      var selects: [String] = []
      var earlier: [String] = []
      func notEarlier() -> String {
        earlier.map { "NOT EXISTS (SELECT 1 FROM \($0))" }.joined(separator: " AND ")
      }
      clauses.append(
        "kura_by_id AS (UPDATE \(table) SET \(set) WHERE \(key) = ?\(primaryKeyIndex + 1) "
          + "RETURNING \(key))")
      selects.append("SELECT 2 AS kura_op, \(key) FROM kura_by_id")
      earlier.append("kura_by_id")
      for (number, constraint) in uniqueConstraints.enumerated() {
        let name = "kura_by_unique_\(number)"
        let match = constraint.map { index -> String in
          let column = names[index]
          if columns[index].valueType == String.self {
            return "kura_key(\(column)) = kura_key(?\(index + 1))"
          }
          return "\(column) = ?\(index + 1)"
        }.joined(separator: " AND ")
        clauses.append(
          "\(name) AS (UPDATE \(table) SET \(set) WHERE \(notEarlier()) AND \(match) "
            + "RETURNING \(key))")
        selects.append("SELECT 2, \(key) FROM \(name)")
        earlier.append(name)
      }
      clauses.append("kura_insert AS (\(insert) WHERE \(notEarlier()) RETURNING \(key))")
      selects.append("SELECT 1, \(key) FROM kura_insert")
      return "WITH " + clauses.joined(separator: ", ") + " "
        + selects.joined(separator: " UNION ALL ")
    }

    /// `kura_history`: the token is given by the writer (`max + 1` under the write lock);
    /// `save_id` identifies the save that wrote the row.
    static let historyTableSQL = """
      CREATE TABLE IF NOT EXISTS kura_history (token BIGINT PRIMARY KEY, \
      time DOUBLE PRECISION NOT NULL, models TEXT NOT NULL, changes BYTEA NOT NULL, save_id TEXT)
      """

    /// `text` as an SQL string literal.
    static func quotedText(_ text: String) -> String {
      "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A value written into SQL as a quoted literal, which takes the type of the column it goes
    /// to (so `'1'` is `true` in a `boolean` column); `nil` for NaN and text holding NUL.
    static func literal(_ value: DatabaseValue) -> String? {
      switch value {
      case .null: return "NULL"
      case .integer(let integer): return "'\(integer)'"
      case .real(let number) where number.isNaN: return nil
      case .real(let number) where number.isInfinite:
        return number > 0 ? "'Infinity'" : "'-Infinity'"
      case .real(let number): return "'\(number)'"
      case .text(let text) where text.utf8.contains(0): return nil
      case .text(let text): return quotedText(text)
      case .blob(let data):
        return "'\\x" + data.map { String(format: "%02x", $0) }.joined() + "'"
      }
    }

    /// The functions (and the collation) the store's SQL uses, created in its schema.
    static let functionsSQL = """
      CREATE SEQUENCE IF NOT EXISTS kura_row_numbers;
      CREATE COLLATION IF NOT EXISTS kura_swift (provider = icu, \
      locale = 'und-u-ks-identic-kk-true', deterministic = false);
      CREATE OR REPLACE FUNCTION kura_key(text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT \
      PARALLEL SAFE AS $$ SELECT convert_to(normalize($1 COLLATE "C", NFC), 'UTF8') $$;
      CREATE OR REPLACE FUNCTION kura_real(double precision) RETURNS double precision \
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT NULLIF($1, 'NaN') $$;
      CREATE OR REPLACE FUNCTION kura_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT \
      PARALLEL SAFE AS $$ SELECT lower(regexp_replace(normalize($1 COLLATE "C", NFD), \
      '[\\u0300-\\u036f]', '', 'g') COLLATE "und-x-icu") $$;
      CREATE OR REPLACE FUNCTION kura_int_fit(numeric) RETURNS bigint LANGUAGE sql IMMUTABLE \
      STRICT PARALLEL SAFE AS $$ SELECT CASE WHEN $1 BETWEEN -9223372036854775808 AND \
      9223372036854775807 THEN $1::bigint END $$;
      CREATE OR REPLACE FUNCTION kura_int_add(bigint, bigint) RETURNS bigint LANGUAGE sql \
      IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT kura_int_fit($1::numeric + $2::numeric) $$;
      CREATE OR REPLACE FUNCTION kura_int_subtract(bigint, bigint) RETURNS bigint LANGUAGE sql \
      IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT kura_int_fit($1::numeric - $2::numeric) $$;
      CREATE OR REPLACE FUNCTION kura_int_multiply(bigint, bigint) RETURNS bigint LANGUAGE sql \
      IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT kura_int_fit($1::numeric * $2::numeric) $$;
      CREATE OR REPLACE FUNCTION kura_int_divide(bigint, bigint) RETURNS bigint LANGUAGE sql \
      IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT CASE WHEN $2 = 0 THEN NULL ELSE \
      kura_int_fit(div($1::numeric, $2::numeric)) END $$;
      CREATE OR REPLACE FUNCTION kura_int_remainder(bigint, bigint) RETURNS bigint LANGUAGE sql \
      IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT CASE WHEN $2 = 0 OR ($2 = -1 AND \
      $1 = -9223372036854775808) THEN NULL ELSE $1 % $2 END $$;
      CREATE OR REPLACE FUNCTION kura_real_add(double precision, double precision) RETURNS \
      double precision LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$ BEGIN \
      RETURN NULLIF($1 + $2, 'NaN'); EXCEPTION WHEN numeric_value_out_of_range THEN \
      RETURN sign($1) * 'Infinity'::double precision; END $$;
      CREATE OR REPLACE FUNCTION kura_real_subtract(double precision, double precision) RETURNS \
      double precision LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$ BEGIN \
      RETURN NULLIF($1 - $2, 'NaN'); EXCEPTION WHEN numeric_value_out_of_range THEN \
      RETURN sign($1) * 'Infinity'::double precision; END $$;
      CREATE OR REPLACE FUNCTION kura_real_multiply(double precision, double precision) RETURNS \
      double precision LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$ BEGIN \
      RETURN NULLIF($1 * $2, 'NaN'); EXCEPTION WHEN numeric_value_out_of_range THEN \
      RETURN sign($1) * sign($2) * CASE WHEN ln(abs($1)) + ln(abs($2)) > 0 THEN \
      'Infinity'::double precision ELSE 0 END; END $$;
      CREATE OR REPLACE FUNCTION kura_real_divide(double precision, double precision) RETURNS \
      double precision LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$ BEGIN \
      RETURN NULLIF($1 / $2, 'NaN'); EXCEPTION WHEN numeric_value_out_of_range THEN \
      RETURN sign($1) * sign($2) * CASE WHEN ln(abs($1)) - ln(abs($2)) > 0 THEN \
      'Infinity'::double precision ELSE 0 END; END $$;
      CREATE OR REPLACE FUNCTION kura_int_neg(bigint) RETURNS bigint LANGUAGE sql IMMUTABLE \
      STRICT PARALLEL SAFE AS $$ SELECT CASE WHEN $1 = -9223372036854775808 THEN NULL ELSE -$1 \
      END $$
      """

    /// The version of ``functionsSQL``, recorded in a comment on `kura_key`: a store whose
    /// functions are older gets them again.
    static let functionsVersion = "kura functions 4"

    /// How many history rows one transaction may append: a token is its transaction's id times
    /// this, plus the row's number in the transaction (ids below 2^47 fit a `bigint`).
    static let tokensPerTransaction: Int64 = 65_536

    /// `kura_history_horizon()`: a token no row of a save still running can be below, so every
    /// row below it that a later statement sees is final. It is the smallest transaction id of
    /// the writers of this store still running — they hold the store's shared lock
    /// (``PostgresStorePool/beginSQL``) from `BEGIN`, before they have an id — else the
    /// snapshot's `xmax` (ids from it on were not handed out, or are running and listed), times
    /// ``tokensPerTransaction``. The lock table is read once (`MATERIALIZED`); it holds 32-bit
    /// ids, each widened to the 64-bit id nearest `xmax` (running ids are within 2^31 of it).
    ///
    /// Read it in a statement of its own, before the statements that read rows below it (in a
    /// new snapshot): a writer that ends between a statement's snapshot and its look at the
    /// lock table is gone from the table but not seen by that snapshot, while a later snapshot
    /// sees it.
    static let horizonFunctionSQL = """
      CREATE OR REPLACE FUNCTION kura_history_horizon() RETURNS bigint LANGUAGE sql STABLE AS $$ \
      WITH kura_locks AS MATERIALIZED (SELECT locktype, virtualtransaction, \
      CAST(CAST(transactionid AS text) AS bigint) AS xid, database, classid, objid, objsubid, \
      mode, granted FROM pg_catalog.pg_locks WHERE granted), \
      kura_next AS (SELECT txid_snapshot_xmax(txid_current_snapshot()) \
      AS next), \
      kura_running AS (SELECT l.virtualtransaction, CASE WHEN ((n.next >> 32) << 32) + l.xid \
      < n.next - 2147483648 THEN ((n.next >> 32) << 32) + l.xid + 4294967296 WHEN \
      ((n.next >> 32) << 32) + l.xid > n.next + 2147483648 THEN ((n.next >> 32) << 32) + l.xid \
      - 4294967296 ELSE ((n.next >> 32) << 32) + l.xid END AS xid FROM kura_locks l, kura_next \
      n WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock') \
      SELECT least((SELECT min(r.xid) FROM kura_running r JOIN kura_locks a ON \
      a.virtualtransaction = r.virtualtransaction WHERE a.locktype = 'advisory' AND a.database = \
      (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()) AND \
      CAST(a.classid AS bigint) = \(PostgresStorePool.lockKey) AND CAST(a.objid AS bigint) = \
      (CAST(hashtext(current_schema()) AS bigint) & 4294967295) AND a.objsubid = 2), \
      (SELECT next FROM kura_next)) * \(tokensPerTransaction) $$
      """

    /// The statement reading the horizon.
    static let historyHorizonSQL = "SELECT kura_history_horizon()"

    /// Whether the store's functions exist in their current version.
    /// Also false when the server's version of the `kura_swift` collation (its ICU version)
    /// is not the one recorded when it was made: ``createFunctions(_:)`` then rebuilds the
    /// indexes that depend on it.
    static func functionsAreCurrent(_ db: PostgresConnection) throws -> Bool {
      try db.queryFirst(
        "SELECT obj_description(p.oid, 'pg_proc') = ? AND \(collationIsCurrent) "
          + "\(inSchema("pg_catalog.pg_proc p", namespace: "p.pronamespace")) "
          + "AND p.proname = 'kura_key'", [.text(functionsVersion)]
      ) { $0.int64(at: 0) != 0 } ?? false
    }

    /// Whether the `kura_swift` collation of the current schema (if any) has the version the
    /// server's ICU gives it now (PostgreSQL records the version when the collation is made).
    private static let collationIsCurrent =
      "coalesce((SELECT co.collversion IS NOT DISTINCT FROM pg_collation_actual_version(co.oid) "
      + "FROM pg_catalog.pg_collation co JOIN pg_catalog.pg_namespace cn ON cn.oid = "
      + "co.collnamespace WHERE cn.nspname = current_schema() AND co.collname = 'kura_swift'), "
      + "true)"

    /// Creates the store's functions (inside the write lock: several processes may open a new
    /// store at once), and `pg_trgm` when the server has it and allows it.
    ///
    /// In a store made by an earlier version (its functions older) or whose collation's ICU
    /// version changed, the indexes that use the functions or the collation are rebuilt
    /// (`REINDEX`: their order may have changed with the function's or ICU's), text columns
    /// that must order as bytes (UUID, URL, JSON) are given `COLLATE "C"`, and the
    /// collation's new version is recorded (`ALTER COLLATION … REFRESH VERSION`).
    static func createFunctions(_ db: PostgresConnection) throws {
      let existing = try db.queryFirst(
        "SELECT to_regclass('kura_models') IS NOT NULL, EXISTS (SELECT 1 FROM pg_proc p JOIN "
          + "pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() AND "
          + "p.proname = 'kura_key')"
      ) { (models: $0.int64(at: 0) != 0, functions: $0.int64(at: 1) != 0) }
      try db.execute(functionsSQL)
      try db.execute(horizonFunctionSQL)
      try db.execute("COMMENT ON FUNCTION kura_key(text) IS \(quotedText(functionsVersion))")
      _ = try? db.savepoint { try db.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm") }
      guard let existing, existing.functions else { return }
      if existing.models { try orderColumnsAsBytes(db) }
      try reindexTextIndexes(db)
      try db.execute("ALTER COLLATION kura_swift REFRESH VERSION")
    }

    /// Gives the UUID, URL and JSON columns of Kura's tables that lack it `COLLATE "C"`
    /// (stores made before they had it): their indexes are rebuilt with them.
    private static func orderColumnsAsBytes(_ db: PostgresConnection) throws {
      let columns = try db.query(
        "SELECT m.table_name, k.value ->> 'name' FROM kura_models m, "
          + "json_array_elements(CAST(m.columns AS json)) AS k WHERE k.value ->> 'kind' IN "
          + "('uuid', 'url', 'json') AND EXISTS (SELECT 1 "
          + inSchema(
            joining: "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid LEFT JOIN "
              + "pg_catalog.pg_collation co ON co.oid = a.attcollation ")
          + " AND c.relname = m.table_name AND c.relkind = 'r' "
          + "AND a.attname = k.value ->> 'name' AND a.atttypid = 'text'::regtype AND "
          + "co.collname IS DISTINCT FROM 'C')"
      ) { (table: $0.string(at: 0), column: $0.string(at: 1)) }
      for (table, column) in columns {
        try db.execute(
          "ALTER TABLE \(quoteIdentifier(table)) ALTER COLUMN \(quoteIdentifier(column)) TYPE "
            + "TEXT COLLATE \"C\"")
      }
    }

    /// Rebuilds the indexes of the schema that call Kura's text functions (`kura_key`,
    /// `kura_fold`) or use the `kura_swift` collation.
    private static func reindexTextIndexes(_ db: PostgresConnection) throws {
      let indexes = try db.query(
        "SELECT c.relname "
          + inSchema(joining: "JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid ")
          + " AND (pg_get_indexdef(i.indexrelid) LIKE '%kura\\_key(%' OR "
          + "pg_get_indexdef(i.indexrelid) LIKE '%kura\\_fold(%' OR EXISTS (SELECT 1 FROM "
          + "pg_catalog.pg_collation co JOIN pg_catalog.pg_namespace cn ON cn.oid = "
          + "co.collnamespace WHERE cn.nspname = current_schema() AND co.collname = 'kura_swift' "
          + "AND co.oid = ANY (CAST(i.indcollation AS oid[])))) ORDER BY 1"
      ) { $0.string(at: 0) }
      for index in indexes { try db.execute("REINDEX INDEX \(quoteIdentifier(index))") }
    }

    // MARK: Introspection

    /// The catalog rows of the connection's schema: `FROM <catalog> JOIN pg_namespace n ON
    /// n.oid = <namespace> <joins> WHERE n.nspname = current_schema()`, further conditions
    /// following with `AND`. By default the rows of `pg_class`, as `c`.
    private static func inSchema(
      _ catalog: String = "pg_catalog.pg_class c", namespace: String = "c.relnamespace",
      joining joins: String = ""
    ) -> String {
      "FROM \(catalog) JOIN pg_catalog.pg_namespace n ON n.oid = \(namespace) \(joins)"
        + "WHERE n.nspname = current_schema()"
    }

    static func tableExists(_ name: String, _ db: PostgresConnection) throws -> Bool {
      try db.queryFirst(
        "SELECT 1 \(inSchema()) AND c.relname = ? AND c.relkind IN ('r', 'p')", [.text(name)]
      ) { _ in true } ?? false
    }

    /// Tables, views, sequences and the indexes not made by a constraint.
    static func schemaObjects(_ db: PostgresConnection) throws -> [(kind: String, name: String)] {
      try db.query(
        "SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'i' THEN "
          + "'index' ELSE 'view' END, c.relname "
          + "\(inSchema()) AND c.relkind IN ('r', 'p', 'i', 'v', 'm') AND NOT EXISTS (SELECT "
          + "1 FROM pg_catalog.pg_constraint k WHERE k.conindid = c.oid AND c.relkind = 'i') "
          + "ORDER BY c.relname"
      ) { (kind: $0.string(at: 0), name: $0.string(at: 1)) }
    }

    static func tableColumns(_ table: String, _ db: PostgresConnection) throws
      -> [StoreColumnInfo]
    {
      try db.query(
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
        [.text(table)]
      ) { row in
        StoreColumnInfo(
          name: row.string(at: 0), type: row.string(at: 1), notNull: row.int64(at: 2) != 0,
          primaryKey: row.int64(at: 3) != 0)
      }
    }

    /// The foreign keys of `table` (one column each, as Kura makes them): column, target
    /// table, target column, delete action, and the constraint's name and definition.
    static func foreignKeyConstraints(of table: String, _ db: PostgresConnection) throws
      -> [(key: StoreForeignKey, name: String, definition: String)]
    {
      try db.query(
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
        [.text(table)]
      ) { row in
        (
          StoreForeignKey(
            column: row.string(at: 0), targetTable: row.string(at: 1),
            targetColumn: row.string(at: 2), onDelete: row.string(at: 3)),
          row.string(at: 4), row.string(at: 5)
        )
      }
    }

    static func foreignKeys(_ table: String, _ db: PostgresConnection) throws -> [StoreForeignKey] {
      try foreignKeyConstraints(of: table, db).map(\.key)
    }

    /// The joins from a table `c` to its indexes but its primary key's (`i`, with their
    /// `pg_class` rows as `ic`).
    private static let indexJoins =
      "JOIN pg_catalog.pg_index i ON i.indrelid = c.oid AND NOT i.indisprimary "
      + "JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid "

    /// The indexes of `table` but its primary key's; a column indexed as `kura_key(column)` is
    /// reported as the column.
    static func indexes(_ table: String, _ db: PostgresConnection) throws -> [StoreIndexInfo] {
      let list = try db.query(
        "SELECT ic.relname, i.indisunique, i.indexrelid::bigint, i.indnatts "
          + inSchema(joining: indexJoins) + " AND c.relname = ? ORDER BY ic.relname",
        [.text(table)]
      ) { row in (row.string(at: 0), row.int64(at: 1) != 0, row.int64(at: 2), row.int64(at: 3)) }
      return try list.map { name, unique, oid, count in
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
    }

    /// The indexes created by `CREATE INDEX` statements of the store, with that statement (the
    /// comment ``PostgresStoreConnection/execute(_:)`` gave them).
    static func indexDefinitions(_ table: String, _ db: PostgresConnection) throws
      -> [(name: String, sql: String)]
    {
      try db.query(
        "SELECT ic.relname, obj_description(ic.oid, 'pg_class') "
          + inSchema(joining: indexJoins) + " AND c.relname = ? "
          + "AND obj_description(ic.oid, 'pg_class') IS NOT NULL",
        [.text(table)]
      ) { (name: $0.string(at: 0), sql: $0.string(at: 1)) }
    }

    /// Every table of the schema with its foreign keys.
    private static func allForeignKeys(_ db: PostgresConnection) throws
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
    private static func danglingCondition(_ key: StoreForeignKey) -> String {
      let column = "kura_row." + quoteIdentifier(key.column)
      let target = quoteIdentifier(key.targetTable)
      let targetColumn = quoteIdentifier(key.targetColumn ?? "id")
      return "\(column) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(target) AS kura_target WHERE "
        + "kura_target.\(targetColumn) = \(column))"
    }

    static func foreignKeyViolations(_ db: PostgresConnection) throws
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

    static func firstDanglingReference(
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
    /// them now (`SET CONSTRAINTS ALL IMMEDIATE` in a savepoint), then defers them again.
    static func hasForeignKeyViolations(_ store: PostgresStoreConnection) -> Bool {
      let db = store.connection
      guard db.isInTransaction else { return false }
      if store.hasForeignKeys == nil {
        store.hasForeignKeys = try? db.queryFirst(
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
        try? db.execute("SET CONSTRAINTS ALL DEFERRED")
        return true
      } catch {
        try? db.execute("SET CONSTRAINTS ALL DEFERRED")
        return false
      }
    }

    /// The record of `model`, else the newest record of the table.
    static func recordedColumnsText(table: String, model: String, _ db: PostgresConnection)
      throws -> String?
    {
      try db.queryFirst(
        "SELECT columns FROM kura_models WHERE table_name = ? ORDER BY model = ? DESC, "
          + "ctid DESC LIMIT 1",
        [.text(table), .text(model)]
      ) { $0.string(at: 0) }
    }

    /// Whether the key column of `table` has the Swift collation.
    static func textKeyComparesLikeSwift(table: String, _ db: PostgresConnection) throws -> Bool {
      let key = try tableColumns(table, db).first { $0.primaryKey }
      guard let key, key.type.hasPrefix("TEXT") else { return true }
      return key.type == columnType(.text)
    }

    /// Up to 10 values of `key` that Swift's `==` calls equal to another.
    static func equivalentTextKeys(table: String, key: String, _ db: PostgresConnection) throws
      -> [String]
    {
      let column = quoteIdentifier(key)
      return try db.query(
        "SELECT \(column) FROM \(quoteIdentifier(table)) WHERE kura_key(\(column)) = (SELECT "
          + "kura_key(\(column)) FROM \(quoteIdentifier(table)) GROUP BY 1 HAVING count(*) > 1 "
          + "LIMIT 1) LIMIT 10"
      ) { $0.string(at: 0) }
    }

    // MARK: History

    /// Appends the row whose token is the transaction's id times ``tokensPerTransaction`` plus
    /// its number among the transaction's rows, with a new save id; the pool notifies the
    /// store's channel once the transaction has committed (``PostgresStorePool/notifySQL``).
    /// Also returns the oldest history row before the append (else the new row), so the history
    /// trim needs no statement of its own.
    static func appendHistory(
      time: Double, models: String, changes: [UInt8], _ db: PostgresStoreConnection
    ) throws -> (token: Int64, oldest: (token: Int64, time: Double)) {
      let saveID = UUID().uuidString
      let statement = try db.connection.cachedStatement(
        "WITH kura_xact AS (SELECT txid_current() * "
          + "\(tokensPerTransaction) AS base), kura_row AS (INSERT INTO kura_history (token, "
          + "time, models, changes, save_id) SELECT coalesce((SELECT max(h.token) + 1 FROM "
          + "kura_history h WHERE h.token >= x.base AND h.token < x.base + "
          + "\(tokensPerTransaction)), x.base), ?, ?, ?, ? FROM kura_xact x RETURNING token, "
          + "time) SELECT kura_row.token, 0, "
          + "coalesce(kura_oldest.token, kura_row.token), coalesce(kura_oldest.time, "
          + "kura_row.time), kura_row.token - (SELECT base FROM kura_xact) FROM kura_row LEFT "
          + "JOIN (SELECT token, time FROM kura_history ORDER BY token LIMIT 1) AS kura_oldest "
          + "ON true")
      defer { statement.rewind() }
      try statement.bind(time, at: 1)
      try statement.bind(models, at: 2)
      try statement.bind(bytes: changes, at: 3)
      try statement.bind(saveID, at: 4)
      guard try statement.step() else {
        throw PostgresError(
          code: .other, message: "appending to kura_history returned no token",
          server: db.connection.location.description, sql: statement.sql)
      }
      guard statement.int64(at: 4) < tokensPerTransaction else {
        throw PostgresError(
          code: .other,
          message:
            "one transaction saved more than \(tokensPerTransaction) times; save fewer times "
            + "inside one `ModelContainer.write` (each save adds a history row)",
          server: db.connection.location.description, sql: statement.sql)
      }
      db.pendingSaveID = saveID
      db.pendingNotification = statement.int64(at: 0)
      return (statement.int64(at: 0), (statement.int64(at: 2), statement.double(at: 3)))
    }

    /// The model names of the history rows after `after` up to `through`.
    static func changedModelNames(after: Int64, through: Int64, _ db: PostgresConnection) throws
      -> [String]
    {
      try db.query(
        "SELECT DISTINCT name FROM kura_history, json_array_elements_text(CAST(models AS json)) "
          + "AS name WHERE token > ? AND token <= ?",
        [.integer(after), .integer(through)]
      ) { $0.string(at: 0) }
    }

    // MARK: Migrations

    /// Whether `table` has the hidden ``rowColumn``.
    private static func hasRowColumn(_ table: String, _ db: PostgresConnection) throws -> Bool {
      try db.queryFirst(
        "SELECT 1 \(inSchema(joining: "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid "))"
          + " AND c.relname = ? AND a.attname = '\(rowColumn)' AND NOT a.attisdropped",
        [.text(table)]
      ) { _ in true } ?? false
    }

    /// Copies in batches of 50,000 paged by ``rowColumn``, keeping each row's number (so rows
    /// keep their order); a table without it (not made by Kura) in one statement.
    static func copyRows(
      from table: String, into temporary: String, columns: String, expressions: [String],
      progress: (Int) -> Void, _ db: PostgresConnection
    ) throws {
      let select = expressions.joined(separator: ", ")
      guard try hasRowColumn(table, db), try hasRowColumn(temporary, db) else {
        try db.execute(
          "INSERT INTO \(quoteIdentifier(temporary)) (\(columns)) SELECT \(select) FROM "
            + quoteIdentifier(table))
        if db.changes > 0 { progress(db.changes) }
        return
      }
      let copy = try db.prepare(
        "WITH kura_copied AS (INSERT INTO \(quoteIdentifier(temporary)) (\(rowColumn), \(columns)) "
          + "SELECT \(rowColumn), \(select) FROM \(quoteIdentifier(table)) WHERE \(rowColumn) > ? "
          + "ORDER BY \(rowColumn) LIMIT \(BatchedCopy.batchSize) RETURNING \(rowColumn)) "
          + "SELECT count(*), max(\(rowColumn)) FROM kura_copied")
      try BatchedCopy.run(progress: progress) { last in
        copy.reset()
        try copy.bind(last ?? .min, at: 1)
        guard try copy.step() else { return (0, nil) }
        defer { copy.rewind() }
        return (Int(copy.int64(at: 0)), copy.isNull(at: 1) ? nil : copy.int64(at: 1))
      }
    }

    /// Replaces `table` with `temporary`: the foreign keys of other tables that point at
    /// `table` are dropped, `table` is dropped, `temporary` renamed, and those keys made again
    /// (checked at commit, as they are deferred).
    static func replaceTable(_ table: String, with temporary: String, _ db: PostgresConnection)
      throws
    {
      var referring: [(table: String, name: String, definition: String)] = []
      if try tableExists(table, db) {
        for other in try schemaObjects(db).filter({ $0.kind == "table" }).map(\.name)
        where other != table {
          for constraint in try foreignKeyConstraints(of: other, db)
          where constraint.key.targetTable == table {
            referring.append((other, constraint.name, constraint.definition))
          }
        }
      }
      // Checks waiting for the commit would keep the tables from being altered: run them now.
      try db.execute("SET CONSTRAINTS ALL IMMEDIATE")
      try db.execute("SET CONSTRAINTS ALL DEFERRED")
      for key in referring {
        try db.execute(
          "ALTER TABLE \(quoteIdentifier(key.table)) DROP CONSTRAINT \(quoteIdentifier(key.name))")
      }
      try db.execute("DROP TABLE IF EXISTS \(quoteIdentifier(table))")
      try db.execute(
        "ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table))")
      // The primary key's index is named after the temporary table; index names are unique in
      // the schema, so it takes the table's name (the next rebuild uses the temporary name).
      let primaryKey = try db.queryFirst(
        "SELECT k.conname "
          + inSchema("pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid")
          + " AND c.relname = ? AND k.contype = 'p'", [.text(table)]
      ) { $0.string(at: 0) }
      if let primaryKey, primaryKey != table + "_pkey" {
        try db.execute(
          "ALTER TABLE \(quoteIdentifier(table)) RENAME CONSTRAINT \(quoteIdentifier(primaryKey)) "
            + "TO \(quoteIdentifier(table + "_pkey"))")
      }
      for key in referring {
        try db.execute(
          "ALTER TABLE \(quoteIdentifier(key.table)) ADD CONSTRAINT \(quoteIdentifier(key.name)) "
            + key.definition)
      }
    }
  }
#endif
