import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  /// A model's search on PostgreSQL (the PostgreSQL engine's part of ``SearchIndex``): every
  /// word is found as a substring — so also as a word prefix, and in Japanese or Chinese text
  /// from two characters — of `kura_fold(column)`, the text in lowercase (ICU) without
  /// diacritics, so `cafe kyo` finds "Café Kyōto" and `寺巡` finds "お寺巡り". Matches at the start
  /// of a word come first.
  ///
  /// When the server has `pg_trgm`, each searchable column gets a GIN trigram index on its
  /// folded text (`<table>_search_<column>`), which speeds up the scan; results never depend on
  /// it. The table itself is the index's content, so every writer keeps it in step.
  package struct PostgresSearchIndex: EngineSearchIndex {
    /// The index this is the engine's part of (its model and searchable columns).
    package let index: SearchIndex
    package var schema: ModelSchema { index.schema }
    package var columns: [String] { index.columns }

    package init(_ index: SearchIndex) { self.index = index }

    /// The prefix of the trigram indexes' names.
    private var prefix: String { schema.tableName + "_search_" }

    /// `kura_fold(column)` as a `"C"`-collated text (`LIKE` takes no nondeterministic collation).
    private func folded(_ column: String) -> String {
      "(kura_fold(\(schema.quotedTable).\(quoteIdentifier(column))) COLLATE \"C\")"
    }

    /// The trigram indexes this version makes, by name (none without `pg_trgm`).
    private func wanted(_ db: PostgresConnection) throws -> [String: String] {
      guard !columns.isEmpty else { return [:] }
      let trigrams =
        try db.queryFirst("SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'pg_trgm'") {
          _ in true
        } ?? false
      guard trigrams else { return [:] }
      var result: [String: String] = [:]
      for column in columns {
        let name = prefix + column
        result[name] =
          "CREATE INDEX \(quoteIdentifier(name)) ON \(schema.quotedTable) USING gin "
          + "((kura_fold(\(quoteIdentifier(column))) COLLATE \"C\") gin_trgm_ops)"
      }
      return result
    }

    /// The trigram indexes the table has now.
    private func existing(_ db: PostgresConnection) throws -> [String] {
      try PostgresStoreEngine.indexes(schema.tableName, db).map(\.name).filter {
        $0.hasPrefix(prefix)
      }
    }

    /// Whether the indexes are as this version makes them.
    package func isCurrent(in db: PostgresConnection) throws -> Bool {
      Set(try existing(db)) == Set(try wanted(db).keys)
    }

    /// Creates the missing indexes and drops those no longer wanted.
    package func prepare(_ db: PostgresConnection) throws {
      let wanted = try wanted(db)
      let existing = Set(try existing(db))
      for name in existing.sorted() where wanted[name] == nil {
        try db.execute("DROP INDEX \(quoteIdentifier(name))")
      }
      for (name, sql) in wanted.sorted(by: { $0.key < $1.key }) where !existing.contains(name) {
        try PostgresStoreEngine.execute(sql, db)
      }
    }

    /// Every word a substring of a searchable column.
    package func condition(words: [String]) -> (sql: String, arguments: [DatabaseValue]) {
      let (tests, arguments) = wordTests(words) { column in
        "\(column) LIKE ('%' || kura_fold(?) || '%') ESCAPE '\\'"
      }
      return (tests.map { "(" + $0 + ")" }.joined(separator: " AND "), arguments)
    }

    /// Rows where more words start a word come first.
    package func order(words: [String]) -> (sql: String, arguments: [DatabaseValue]) {
      let (tests, arguments) = wordTests(words) { column in
        "(' ' || \(column)) LIKE ('% ' || kura_fold(?) || '%') ESCAPE '\\'"
      }
      let terms = tests.map { "CASE WHEN " + $0 + " THEN 1 ELSE 0 END" }
      return ("(0 - " + terms.joined(separator: " - ") + ")", arguments)
    }

    /// For each word, `test` of every searchable column's folded text joined by `OR`, its `?`
    /// bound to the word escaped for `LIKE`.
    private func wordTests(
      _ words: [String], _ test: (_ foldedColumn: String) -> String
    ) -> (tests: [String], arguments: [DatabaseValue]) {
      var tests: [String] = []
      var arguments: [DatabaseValue] = []
      let dialect = PostgresDialect()
      for word in words {
        let pattern = dialect.escapeLikePattern(word)
        let alternatives = columns.map { column -> String in
          arguments.append(.text(pattern))
          return test(folded(column))
        }
        tests.append(alternatives.joined(separator: " OR "))
      }
      return (tests, arguments)
    }
  }
#endif
