import Foundation

/// The store's change history: one row per save in `kura_history` (its token, time, the names
/// of the models it changed, and its change set as JSON).
enum ChangeHistory {
  static let createSQL = """
    CREATE TABLE IF NOT EXISTS kura_history (token INTEGER PRIMARY KEY, \
    time REAL NOT NULL, models TEXT NOT NULL, changes TEXT NOT NULL)
    """

  /// Writes a change set; returns its token.
  static func record(
    _ changes: [String: ChangeSet.ModelChanges], order: [String], date: Date, in db: Connection
  ) throws -> HistoryToken {
    var json = "{"
    for (index, model) in order.enumerated() {
      guard let modelChanges = changes[model] else { continue }
      if index > 0 { json += "," }
      appendJSONString(model, to: &json)
      json += ":["
      for (listIndex, list) in [modelChanges.inserted, modelChanges.updated, modelChanges.deleted]
        .enumerated()
      {
        if listIndex > 0 { json += "," }
        json += "["
        for (idIndex, id) in list.enumerated() {
          if idIndex > 0 { json += "," }
          appendJSONString(id, to: &json)
        }
        json += "]"
      }
      json += "]"
    }
    json += "}"
    let models = "," + order.joined(separator: ",") + ","
    let statement = try db.cachedStatement(
      "INSERT INTO kura_history (time, models, changes) VALUES (?, ?, ?)")
    statement.reset()
    try statement.bind([.real(date.timeIntervalSince1970), .text(models), .text(json)])
    try statement.execute()
    return HistoryToken(rawValue: db.lastInsertedRowID)
  }

  /// The token of the last save (``HistoryToken/start`` before any).
  static func latestToken(_ db: Connection) throws -> HistoryToken {
    let value = try db.queryFirst("SELECT coalesce(max(token), 0) FROM kura_history") {
      $0.int64(at: 0)
    }
    return HistoryToken(rawValue: value ?? 0)
  }

  /// The change sets after `token`, oldest first.
  static func changeSets(since token: HistoryToken, in db: Connection) throws -> [ChangeSet] {
    try db.query(
      "SELECT token, time, changes FROM kura_history WHERE token > ? ORDER BY token",
      [.integer(token.rawValue)]
    ) { row in
      let lists = try JSONDecoder().decode(
        [String: [[String]]].self, from: Data(row.string(at: 2).utf8))
      var changes: [String: ChangeSet.ModelChanges] = [:]
      for (model, list) in lists where list.count == 3 {
        changes[model] = ChangeSet.ModelChanges(
          inserted: list[0], updated: list[1], deleted: list[2])
      }
      return ChangeSet(
        token: HistoryToken(rawValue: row.int64(at: 0)),
        date: Date(timeIntervalSince1970: row.double(at: 1)), changes: changes)
    }
  }

  /// The model names changed after `token`, and the latest token (cheap: no JSON decoding).
  static func changedModels(since token: HistoryToken, in db: Connection) throws -> (
    models: Set<String>, latest: HistoryToken
  ) {
    var models = Set<String>()
    var latest = token
    let rows = try db.query(
      "SELECT token, models FROM kura_history WHERE token > ? ORDER BY token",
      [.integer(token.rawValue)]
    ) { row in (row.int64(at: 0), row.string(at: 1)) }
    for (value, names) in rows {
      latest = HistoryToken(rawValue: value)
      for name in names.split(separator: ",") { models.insert(String(name)) }
    }
    return (models, latest)
  }
}
