import KuraBase
import KuraStore

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
  /// - `kura_history.token` is the writing transaction's id plus its history branch's offset
  ///   (``historyBranchesTableSQL``: a promoted standby, a restored backup, another cluster
  ///   each start a branch whose ids are above every token before) times
  ///   ``tokensPerTransaction``, plus the row's number in it: tokens grow with transaction
  ///   ids, not commits, and readers read only below the horizon (``horizonFunctionSQL``:
  ///   every writer of the store with a smaller id has ended), so a token that commits late is
  ///   never skipped. `pg_notify`, sent by the
  ///   pool after the commit, wakes the listeners; a lost commit's outcome is told by the
  ///   commit's random id in `kura_commits` (``PostgresStorePool``), never by the transaction's
  ///   id, which a crash can hand out again.
  package struct PostgresStoreEngine: SearchingEngine, StaticEngineSQL, EngineIntrospection {
    package typealias SearchSQL = PostgresSearchIndex
    package typealias Driver = PostgresConnection
    /// The name of the collation of `String` columns.
    package static let collation = "kura_swift"

    // MARK: DDL

    /// The declared type of a column holding `kind` (uppercase, as introspection reports it).
    package static func columnType(_ kind: ColumnKind) -> String {
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
    package static func columnKind(ofDeclaredType type: String) -> ColumnKind? {
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
    package static let rowColumn = "kura_row"

    /// `"id" TEXT COLLATE KURA_SWIFT NOT NULL PRIMARY KEY` (ids Swift calls equal are one row),
    /// followed by the hidden ``rowColumn``.
    package static func primaryKeyDefinition(_ schema: ModelSchema) -> String {
      PostgresStoreEngine().columnDefinition(schema.primaryKey) + " PRIMARY KEY, "
        + "\(rowColumn) BIGINT NOT NULL DEFAULT nextval('kura_row_numbers')"
    }

    /// `expression` converted to the column type of `kind`.
    package static func cast(_ expression: String, to kind: ColumnKind) -> String {
      switch kind {
      case .text, .uuid, .url, .json: return "CAST(\(expression) AS TEXT)"
      default: return "CAST(\(expression) AS \(columnType(kind)))"
      }
    }

    /// The upsert of one row of `schema`: parameters `?1…?n` are its columns in order. It
    /// returns `kura_op` (1 inserted, 2 updated) and the key of the row it wrote, none when it
    /// changed nothing (a model with only an id, already stored). With unique attributes, a
    /// stored row whose unique values match is updated in place (it keeps its id), as SQLite's
    /// upsert does with an `ON CONFLICT` clause per unique attribute.
    package static func upsertSQL(
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
      guard !uniqueConstraints.isEmpty else {
        // Only the id is unique: one insert that updates the stored row instead (a row it
        // inserted has `xmax = 0`, one it updated the id of the lock it took).
        let update = others.map { "\(names[$0]) = excluded.\(names[$0])" }
          .joined(separator: ", ")
        return "INSERT INTO \(table) AS kura_target (\(names.joined(separator: ", "))) VALUES ("
          + values.joined(separator: ", ") + ") ON CONFLICT (\(key)) DO UPDATE SET \(update) "
          + "RETURNING CASE WHEN kura_target.xmax = 0 THEN 1 ELSE 2 END AS kura_op, "
          + "kura_target.\(key)"
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

    /// `kura_history`: the token is given by the writer
    /// (``appendHistory(time:models:changes:readingOldest:_:)``).
    ///
    /// `commit_id` is the commit id of the pool transaction that appended the row
    /// (``CommitIDSource``), its commit marker; stores made before it get it with their next
    /// schema change (``PostgresStorePool/makeCommitMarkers(_:)``).
    ///
    /// Stores made by earlier versions also have a nullable `save_id` column (a UUID per save,
    /// once how a lost commit's outcome was told): it stays, so processes of those versions
    /// keep saving to them, and rows written now leave it NULL. No step removes it.
    package static let historyTableSQL = """
      CREATE TABLE IF NOT EXISTS kura_history (token BIGINT PRIMARY KEY, \
      time DOUBLE PRECISION NOT NULL, models TEXT NOT NULL, changes BYTEA NOT NULL, \
      commit_id UUID)
      """

    /// `text` as an SQL string literal.
    package static func quotedText(_ text: String) -> String {
      "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A value written into SQL as a quoted literal, which takes the type of the column it goes
    /// to (so `'1'` is `true` in a `boolean` column); `nil` for NaN and text holding NUL.
    package static func literal(_ value: DatabaseValue) -> String? {
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
    package static let functionsSQL = """
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
    package static let functionsVersion = "kura functions 7"

    /// How many history rows one transaction may append: a token is its transaction's id plus
    /// its history branch's offset (``historyOffsetFunctionSQL``) times this, plus the row's
    /// number in the transaction (id plus offset below 2^47 fits a `bigint`).
    package static let tokensPerTransaction: Int64 = 65_536

    /// `kura_history_horizon()`: a token no row of a save still running can be below, so every
    /// row below it that a later statement sees is final. It is the smallest transaction id of
    /// the writers of this store still running — they hold the store's shared lock
    /// (``PostgresStorePool/beginSQL``) from `BEGIN`, before they have an id — else the
    /// snapshot's `xmax` (ids from it on were not handed out, or are running and listed), plus
    /// the largest branch offset in `kura_history_branches` — the offset of the branch the
    /// server writes on, or, before that branch has its row (its first save has not
    /// committed), a smaller one, which only holds the horizon lower — times
    /// ``tokensPerTransaction``. The lock table is read once (`MATERIALIZED`); it holds 32-bit
    /// ids, each widened to the 64-bit id nearest `xmax` (running ids are within 2^31 of it).
    /// A transaction running in the snapshot that has no lock in the table yet counts too: a
    /// transaction takes its id, then its lock, so a writer of the store may be between the
    /// two (or the transaction ended since the snapshot; the horizon is then low for a moment).
    ///
    /// Read it in a statement of its own, before the statements that read rows below it (in a
    /// new snapshot): a writer that ends between a statement's snapshot and its look at the
    /// lock table is gone from the table but not seen by that snapshot, while a later snapshot
    /// sees it.
    ///
    /// `kura_history_horizon_once()` reads it once; `kura_history_horizon()` reads it again (in
    /// a new snapshot, up to 3 times) while saves have committed at or above it and each read
    /// finds it higher: a transaction that ended between a read's snapshot and its look at the
    /// lock table held the first read low (any transaction of the cluster, of any database),
    /// and is gone from the next read's snapshot. A writer of the store still running holds it
    /// where it is. Each read is a horizon in its own right, and the horizon only grows, so
    /// the highest read is one for the statements after the last.
    package static let horizonFunctionSQL = """
      CREATE OR REPLACE FUNCTION kura_history_horizon() RETURNS bigint LANGUAGE plpgsql \
      VOLATILE AS $$ DECLARE horizon bigint := kura_history_horizon_once(); again bigint; \
      newest bigint; BEGIN FOR attempt IN 1..3 LOOP \
      SELECT max(token) INTO newest FROM kura_history; \
      IF newest IS NULL OR newest < horizon THEN RETURN horizon; END IF; \
      again := kura_history_horizon_once(); \
      IF again IS NULL OR again <= horizon THEN RETURN horizon; END IF; \
      horizon := again; END LOOP; RETURN horizon; END $$
      """

    /// One read of the horizon (see ``horizonFunctionSQL``).
    package static let horizonOnceFunctionSQL = """
      CREATE OR REPLACE FUNCTION kura_history_horizon_once() RETURNS bigint LANGUAGE sql \
      STABLE AS $$ \
      WITH kura_locks AS MATERIALIZED (SELECT locktype, virtualtransaction, \
      CAST(CAST(transactionid AS text) AS bigint) AS xid, database, classid, objid, objsubid, \
      mode, granted FROM pg_catalog.pg_locks WHERE granted), \
      kura_snapshot AS (SELECT txid_current_snapshot() AS snapshot), \
      kura_next AS (SELECT txid_snapshot_xmax(snapshot) AS next FROM kura_snapshot), \
      kura_running AS (SELECT l.virtualtransaction, CASE WHEN ((n.next >> 32) << 32) + l.xid \
      < n.next - 2147483648 THEN ((n.next >> 32) << 32) + l.xid + 4294967296 WHEN \
      ((n.next >> 32) << 32) + l.xid > n.next + 2147483648 THEN ((n.next >> 32) << 32) + l.xid \
      - 4294967296 ELSE ((n.next >> 32) << 32) + l.xid END AS xid FROM kura_locks l, kura_next \
      n WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock') \
      SELECT (least((SELECT min(x) FROM kura_snapshot s, txid_snapshot_xip(s.snapshot) AS x \
      WHERE x NOT IN (SELECT xid FROM kura_running)), \
      (SELECT min(r.xid) FROM kura_running r JOIN kura_locks a ON \
      a.virtualtransaction = r.virtualtransaction WHERE a.locktype = 'advisory' AND a.database = \
      (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()) AND \
      CAST(a.classid AS bigint) = \(PostgresStorePool.lockKey) AND CAST(a.objid AS bigint) = \
      (CAST(hashtext(current_schema()) AS bigint) & 4294967295) AND a.objsubid = 2), \
      (SELECT next FROM kura_next)) + coalesce((SELECT max(xid_offset) FROM \
      kura_history_branches), 0)) * \(tokensPerTransaction) $$
      """

    /// The statement reading the horizon.
    package static let historyHorizonSQL = "SELECT kura_history_horizon()"

    /// Tries to take the store's history-trim lock (an advisory lock of the store's schema on
    /// the key after Kura's store lock, ``PostgresStorePool/lockKey`` + 1, which saves don't
    /// take) until the transaction ends; answers whether it did.
    package static let historyTrimLockSQL =
      "SELECT CAST(pg_try_advisory_xact_lock(\(PostgresStorePool.lockKey + 1), "
      + "hashtext(current_schema())) AS integer)"

    /// Whether the store's functions exist in their current version.
    /// Also false when the server's version of the `kura_swift` collation (its ICU version)
    /// is not the one recorded when it was made: ``createFunctions(_:)`` then rebuilds the
    /// indexes that depend on it.
    package static func functionsAreCurrent(_ db: PostgresConnection) throws -> Bool {
      try db.queryFirst(
        "SELECT obj_description(p.oid, 'pg_proc') = ? AND \(collationIsCurrent) "
          + "\(inSchema("pg_catalog.pg_proc p", namespace: "p.pronamespace")) "
          + "AND p.proname = 'kura_key'", [.text(functionsVersion)]
      ) { $0.int64(at: 0) != 0 } ?? false
    }

    /// Whether the `kura_swift` collation of the current schema (if any) has the version the
    /// server's ICU gives it now (PostgreSQL records the version when the collation is made).
    package static let collationIsCurrent =
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
    package static func createFunctions(_ db: PostgresConnection) throws {
      let existing = try db.queryFirst(
        "SELECT to_regclass('kura_models') IS NOT NULL, EXISTS (SELECT 1 FROM pg_proc p JOIN "
          + "pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() AND "
          + "p.proname = 'kura_key')"
      ) { (models: $0.int64(at: 0) != 0, functions: $0.int64(at: 1) != 0) }
      try db.execute(functionsSQL)
      try createHistoryBranches(db)
      try db.execute(horizonOnceFunctionSQL)
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
    package static func orderColumnsAsBytes(_ db: PostgresConnection) throws {
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
      if !columns.isEmpty { try detachReadableViews(db) }
      for (table, column) in columns {
        try db.execute(
          "ALTER TABLE \(quoteIdentifier(table)) ALTER COLUMN \(quoteIdentifier(column)) TYPE "
            + "TEXT COLLATE \"C\"")
      }
    }

    /// Rebuilds the indexes of the schema that call Kura's text functions (`kura_key`,
    /// `kura_fold`) or use the `kura_swift` collation.
    package static func reindexTextIndexes(_ db: PostgresConnection) throws {
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
  }

#endif
