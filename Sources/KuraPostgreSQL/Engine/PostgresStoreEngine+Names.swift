import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreEngine {
    /// A name of at most 63 bytes is its own identifier; a longer one (which PostgreSQL would
    /// cut) is fitted: its first bytes, `_` and a hash of the whole name
    /// (``PostgresIdentifier/fitted(_:)``), as the driver sends it in SQL.
    package func identifier(_ name: String) -> String { PostgresIdentifier.fitted(name) }

    /// `name` as the catalog holds it (a name compared with `pg_class.relname` or
    /// `pg_attribute.attname`).
    package static func stored(_ name: String) -> DatabaseValue {
      .text(PostgresIdentifier.fitted(name))
    }

    /// Runs SQL without parameters; a `CREATE [UNIQUE] INDEX` also records its own text as the
    /// index's comment (what ``StoreConnection/kuraIndexDefinitions(of:)`` compares, and where
    /// a fitted index name finds its full name).
    package static func execute(_ sql: String, _ db: PostgresConnection) throws {
      try db.execute(sql)
      if let name = createdIndexName(sql) {
        try db.execute("COMMENT ON INDEX \(name) IS \(quotedText(sql))")
      }
    }

    /// The quoted name of the index `sql` creates, or `nil` when it creates none.
    package static func createdIndexName(_ sql: String) -> String? {
      var rest = Substring(sql)
      for word in ["CREATE ", "UNIQUE ", "INDEX "] {
        if rest.hasPrefix(word) {
          rest = rest.dropFirst(word.count)
        } else if word != "UNIQUE " {
          return nil
        }
      }
      guard rest.hasPrefix("\"") else { return nil }
      var index = rest.index(after: rest.startIndex)
      while index < rest.endIndex {
        if rest[index] == "\"" {
          let next = rest.index(after: index)
          if next < rest.endIndex, rest[next] == "\"" {
            index = rest.index(after: next)
            continue
          }
          return String(rest[rest.startIndex...index])
        }
        index = rest.index(after: index)
      }
      return nil
    }

    /// The full name of the index `identifier` (from the catalog) whose comment is `comment`:
    /// the name its `CREATE INDEX` statement gave it, when that name fits to `identifier`.
    package static func indexName(_ identifier: String, comment: String?) -> String {
      guard PostgresIdentifier.mayBeFitted(identifier), let comment,
        let quoted = createdIndexName(comment)
      else { return identifier }
      let name = String(quoted.dropFirst().dropLast()).replacingOccurrences(
        of: "\"\"", with: "\"")
      return PostgresIdentifier.fitted(name) == identifier ? name : identifier
    }
  }

  /// The full names of the fitted identifiers a catalog query returned
  /// (``PostgresIdentifier``): the tables and columns `kura_models` records, by the identifier
  /// each becomes. Looked up only when an identifier has a fitted name's shape.
  package struct PostgresFullNames {
    private var names: [String: String] = [:]

    /// The full names of those of `identifiers` that are fitted names of tables or columns
    /// `kura_models` records (none when the schema has no `kura_models`).
    package init(of identifiers: some Sequence<String>, _ db: PostgresConnection) throws {
      let fitted = Set(identifiers.filter(PostgresIdentifier.mayBeFitted))
      guard !fitted.isEmpty else { return }
      let recorded =
        try db.queryFirst("SELECT to_regclass('kura_models') IS NOT NULL") {
          $0.int64(at: 0) != 0
        } ?? false
      guard recorded else { return }
      let full = try db.query(
        "SELECT table_name FROM kura_models UNION SELECT k.value ->> 'name' FROM kura_models m, "
          + "json_array_elements(CAST(m.columns AS json)) AS k"
      ) { $0.string(at: 0) }
      for name in full where name.utf8.count > PostgresIdentifier.longestName {
        let identifier = PostgresIdentifier.fitted(name)
        if fitted.contains(identifier) { names[identifier] = name }
      }
    }

    /// The full name of `identifier`, or `identifier` itself.
    package subscript(_ identifier: String) -> String { names[identifier] ?? identifier }
  }
#endif
