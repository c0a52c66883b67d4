import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

#if canImport(CLibPQ)
  import Foundation

  /// The space's catalogue (``SyncCatalog``) on the server, inside the push transaction (which
  /// holds the space's lock): learnt from each push's declarations, then every new save's
  /// changes checked against it before they enter the log. A refusal is HTTP 400 (`refused` for
  /// a change, `schemaConflict` for a declaration) naming the model and the property, and the
  /// whole push is rolled back.
  ///
  /// Besides the models (`kura_sync_catalog`, one row per model with its declaration's JSON), the
  /// server keeps the highest incarnation of each id it accepted (`kura_sync_catalog_ids`), so
  /// it tells a new model, which must carry every required property, from an edit of one.
  extension SyncService {
    package static let catalogSchemaSQL = """
      CREATE TABLE IF NOT EXISTS kura_sync_catalog (
        space text COLLATE "C" NOT NULL, model text COLLATE "C" NOT NULL,
        declaration text NOT NULL,
        PRIMARY KEY (space, model))
      """

    /// Creates the catalogue's tables; on a database made by an earlier version (no table of
    /// ids), fills the table of ids from the log and the compacted rows, so an edit of a model
    /// accepted before the upgrade is not taken for a new model.
    package static func upgradeCatalog(_ connection: PostgresConnection) throws {
      try connection.execute(catalogSchemaSQL)
      let present =
        try connection.queryFirst(
          "SELECT CASE WHEN to_regclass('kura_sync_catalog_ids') IS NULL THEN 0 ELSE 1 END"
        ) { $0.int64(at: 0) } ?? 0
      guard present == 0 else { return }
      try connection.execute(
        """
        CREATE TABLE kura_sync_catalog_ids (
          space text COLLATE "C" NOT NULL, model text COLLATE "C" NOT NULL,
          id text COLLATE "C" NOT NULL, incarnation bigint NOT NULL,
          PRIMARY KEY (space, model, id))
        """)
      try connection.execute(
        """
        INSERT INTO kura_sync_catalog_ids (space, model, id, incarnation)
        SELECT space, model, id, max(incarnation) FROM (
          SELECT l.space, c->>'model' AS model, c->>'id' AS id,
            (c->>'incarnation')::bigint AS incarnation
          FROM kura_sync_log l, jsonb_array_elements(l.changes::jsonb) c
          UNION ALL
          SELECT space, model, id, incarnation FROM kura_sync_rows) known
        GROUP BY space, model, id
        """)
    }

    /// The space's catalogue after learning a push's declarations (stored when they changed it).
    ///
    /// - Throws: A 400 `refused` answer for a declaration that contradicts the catalogue.
    package func learnCatalog(
      _ declarations: [SyncModelDeclaration]?, space: String, _ connection: PostgresConnection
    ) throws -> SyncCatalog {
      var catalog = SyncCatalog()
      let decoder = JSONDecoder()
      let rows = try connection.query(
        "SELECT model, declaration FROM kura_sync_catalog WHERE space = ?", [.text(space)]
      ) { ($0.string(at: 0), $0.string(at: 1)) }
      for (model, text) in rows {
        guard
          let declaration = try? decoder.decode(SyncModelDeclaration.self, from: Data(text.utf8))
        else { continue }
        catalog.models[model] = declaration
      }
      guard let declarations, !declarations.isEmpty else { return catalog }
      let changed: [SyncModelDeclaration]
      do {
        changed = try catalog.learn(declarations)
      } catch let refusal as SyncCatalog.Refusal {
        throw Self.refused(refusal, code: "schemaConflict")
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      for declaration in changed {
        try connection.run(
          "INSERT INTO kura_sync_catalog (space, model, declaration) VALUES (?, ?, ?) "
            + "ON CONFLICT (space, model) DO UPDATE SET declaration = excluded.declaration",
          [
            .text(space), .text(declaration.model),
            .text(String(decoding: try encoder.encode(declaration), as: UTF8.self)),
          ])
      }
      return catalog
    }

    /// Checks a new save against the catalogue (each change, then each new model's required
    /// properties and each reference's target), and records the incarnations it opens.
    ///
    /// - Returns: The save with its unique attributes and `.deny` references from the catalogue.
    /// - Throws: A 400 `refused` answer naming the model and the property.
    package func admit(
      _ save: SyncSave, catalog: SyncCatalog, space: String, _ connection: PostgresConnection
    ) throws -> SyncSave {
      do {
        for change in save.changes { try catalog.check(change, save: save.sequence) }
      } catch let refusal as SyncCatalog.Refusal {
        throw Self.refused(refusal)
      }
      // The highest incarnation of each id in the save, and what its sets of it carry.
      var latest: [SyncMergeState.Key: (incarnation: Int64, set: Set<String>, deleted: Bool)] =
        [:]
      for change in save.changes {
        let key = SyncMergeState.Key(model: change.model, id: change.id)
        var entry = latest[key] ?? (change.incarnation, [], false)
        if change.incarnation > entry.incarnation { entry = (change.incarnation, [], false) }
        if change.incarnation == entry.incarnation {
          if change.deleted {
            entry.deleted = true
          } else if let property = change.property, change.value != .null {
            entry.set.insert(property)
          }
        }
        latest[key] = entry
      }
      // One query a model for the ids' known incarnations, the ids bound as one JSON array.
      // A lookup by the whole key for each id (the subquery): a join or `IN` was planned, for a
      // table without statistics yet, as a scan of the model's every id, for every save.
      var known: [SyncMergeState.Key: Int64] = [:]
      let byModel = Dictionary(grouping: latest.keys, by: \.model)
      for (model, keys) in byModel.sorted(by: { $0.key < $1.key }) {
        let ids = String(
          decoding: try JSONEncoder().encode(keys.map(\.id).sorted()), as: UTF8.self)
        let rows = try connection.query(
          "SELECT wanted.id, (SELECT known.incarnation FROM kura_sync_catalog_ids known "
            + "WHERE known.space = ? AND known.model = ? AND known.id = wanted.id) "
            + "FROM jsonb_array_elements_text(?::jsonb) AS wanted(id)",
          [.text(space), .text(model), .text(ids)]
        ) { ($0.string(at: 0), $0.isNull(at: 1) ? 0 : $0.int64(at: 1)) }
        for (id, incarnation) in rows where incarnation > 0 {
          known[SyncMergeState.Key(model: model, id: id)] = incarnation
        }
      }
      for key in latest.keys.sorted() {
        guard let entry = latest[key], let declaration = catalog.models[key.model],
          entry.incarnation > known[key] ?? 0, !entry.deleted
        else { continue }
        // A new model (or a new life of an id): it carries every required property.
        for property in declaration.properties
        where property.isRequired && !entry.set.contains(property.name) {
          throw Self.refused(
            SyncCatalog.Refusal(
              model: key.model, property: property.name,
              message:
                "Save \(save.sequence) makes a new `\(key.model)` `\(key.id.prefix(100))` without "
                + "`\(property.name)`, which is required: no replica could store it. Nothing was "
                + "applied."))
        }
      }
      try checkTargets(save, catalog: catalog, latest: latest, space: space, connection)
      // The incarnations the save opens, in one statement.
      var opened: [[String]] = []
      for key in latest.keys.sorted() {
        guard let entry = latest[key], entry.incarnation > known[key] ?? 0 else { continue }
        opened.append([key.model, key.id, String(entry.incarnation)])
      }
      if !opened.isEmpty {
        try connection.run(
          "INSERT INTO kura_sync_catalog_ids (space, model, id, incarnation) "
            + "SELECT ?, entry->>0, entry->>1, (entry->>2)::bigint "
            + "FROM jsonb_array_elements(?::jsonb) entry "
            + "ON CONFLICT (space, model, id) DO UPDATE SET incarnation = "
            + "GREATEST(kura_sync_catalog_ids.incarnation, excluded.incarnation)",
          [.text(space), .text(String(decoding: try JSONEncoder().encode(opened), as: UTF8.self))])
      }
      return catalog.arbitrated(save)
    }

    /// Refuses a reference to an id that no save of the space (this one included) made a model
    /// of the reference's target: an id of another model, or of none (a `.noAction` reference
    /// may point at nothing, so it is not checked).
    private func checkTargets(
      _ save: SyncSave, catalog: SyncCatalog,
      latest: [SyncMergeState.Key: (incarnation: Int64, set: Set<String>, deleted: Bool)],
      space: String, _ connection: PostgresConnection
    ) throws {
      var checked: Set<SyncMergeState.Key> = []
      for change in save.changes {
        guard let name = change.property, let value = change.value, value != .null,
          let reference = catalog.models[change.model]?.property(name),
          let target = reference.target, reference.rule != "noAction"
        else { continue }
        let key = SyncMergeState.Key(model: target, id: idText(value))
        guard latest[key] == nil, checked.insert(key).inserted else { continue }
        let exists =
          try connection.queryFirst(
            "SELECT 1 FROM kura_sync_catalog_ids WHERE space = ? AND model = ? AND id = ?",
            [.text(space), .text(key.model), .text(key.id)]
          ) { _ in true } ?? false
        guard !exists else { continue }
        throw Self.refused(
          SyncCatalog.Refusal(
            model: change.model, property: name,
            message:
              "Save \(save.sequence)'s `\(change.model)` `\(change.id.prefix(100))` sets `\(name)` "
              + "to `\(key.id.prefix(100))`, which is not the id of any `\(target)` of the space. "
              + "Nothing was applied."))
      }
    }

    /// The 400 answer of a refusal, naming its model and property: `refused` for a change,
    /// `schemaConflict` for a declaration (the client then keeps its outbox as it is).
    package static func refused(_ refusal: SyncCatalog.Refusal, code: String = "refused")
      -> SyncHTTPResponse.Thrown
    {
      .init(
        json(
          400,
          SyncErrorResponse(
            error: code, message: refusal.message, expected: nil, model: refusal.model,
            property: refusal.property)))
    }
  }
#endif
