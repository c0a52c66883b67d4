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
    // Built as UTF-8 bytes in one buffer: saves of many models write many ids.
    var json: [UInt8] = []
    var capacity = 2
    for model in order {
      guard let modelChanges = changes[model] else { continue }
      capacity += model.utf8.count + 16
      for list in [modelChanges.inserted, modelChanges.updated, modelChanges.deleted] {
        for id in list { capacity += id.utf8.count + 3 }
      }
    }
    json.reserveCapacity(capacity)
    json.append(UInt8(ascii: "{"))
    var models: [UInt8] = [UInt8(ascii: "[")]
    for model in order {
      guard let modelChanges = changes[model] else { continue }
      if json.count > 1 { json.append(UInt8(ascii: ",")) }
      appendJSONString(model, to: &json)
      json.append(contentsOf: ":[".utf8)
      appendJSONStrings(modelChanges.inserted, to: &json)
      json.append(UInt8(ascii: ","))
      appendJSONStrings(modelChanges.updated, to: &json)
      json.append(UInt8(ascii: ","))
      appendJSONStrings(modelChanges.deleted, to: &json)
      json.append(UInt8(ascii: "]"))
      if models.count > 1 { models.append(UInt8(ascii: ",")) }
      appendJSONString(model, to: &models)
    }
    json.append(UInt8(ascii: "}"))
    models.append(UInt8(ascii: "]"))
    let statement = try db.cachedStatement(
      "INSERT INTO kura_history (time, models, changes) VALUES (?, ?, ?)")
    statement.reset()
    try statement.bind(date.timeIntervalSince1970, at: 1)
    try statement.bind(String(decoding: models, as: UTF8.self), at: 2)
    try statement.bind(String(decoding: json, as: UTF8.self), at: 3)
    try statement.execute()
    return HistoryToken(rawValue: db.lastInsertedRowID)
  }

  /// Deletes the history `retention` no longer keeps (at most a bounded number of rows per
  /// save, so a save stays cheap), never the newest row, and records what was deleted.
  static func trim(
    _ db: Connection, keeping retention: HistoryRetention, latest: HistoryToken, now: Date
  ) throws {
    // The oldest kept save first (one primary-key step): most saves find nothing to trim and
    // stop here, without scanning the history for old rows.
    let oldestRow = try db.queryFirst("SELECT token, time FROM kura_history ORDER BY token LIMIT 1")
    {
      ($0.int64(at: 0), $0.double(at: 1))
    }
    guard let (oldest, oldestTime) = oldestRow else { return }
    var through: Int64 = 0
    if let count = retention.maximumCount {
      through = latest.rawValue - Int64(max(count, 1))
    }
    if let age = retention.maximumAge, oldestTime < now.timeIntervalSince1970 - age {
      let old = try db.queryFirst(
        "SELECT max(token) FROM (SELECT token, time FROM kura_history WHERE token < ? ORDER BY "
          + "token LIMIT 1000) WHERE time < ?",
        [.integer(latest.rawValue), .real(now.timeIntervalSince1970 - age)]
      ) { $0.isNull(at: 0) ? nil : $0.int64(at: 0) }
      if let old = old ?? nil { through = max(through, old) }
    }
    through = min(through, latest.rawValue - 1)
    guard through > 0, oldest <= through else { return }
    try db.run("DELETE FROM kura_history WHERE token <= ?", [.integer(through)])
    try recordTrim(through: through, in: db)
  }

  /// Records that the history up to `token` is gone (readers from before it must refetch).
  static func recordTrim(through token: Int64, in db: Connection) throws {
    try db.run(
      "INSERT INTO kura_metadata (key, value) VALUES ('historyTrimmedThrough', ?) "
        + "ON CONFLICT (key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), "
        + "CAST(excluded.value AS INTEGER)) AS TEXT)", [.text(String(token))])
  }

  /// The last token whose history was trimmed (0 when none was).
  static func trimmedThrough(_ db: Connection) throws -> Int64 {
    let text = try db.queryFirst(
      "SELECT value FROM kura_metadata WHERE key = 'historyTrimmedThrough'"
    ) { $0.string(at: 0) }
    return text.flatMap { Int64($0) } ?? 0
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
    // `models` is a JSON array of names (any name, commas included); rows written before it
    // was (`,A,B,`) are read from the keys of their `changes` object instead.
    let found = try db.queryFirst(
      "SELECT max(token) FROM kura_history WHERE token > ?", [.integer(token.rawValue)]
    ) { $0.isNull(at: 0) ? token : HistoryToken(rawValue: $0.int64(at: 0)) }
    let latest = found ?? token
    // Bounded by `latest`: a save committed meanwhile is left for the next call.
    let names = try db.query(
      "SELECT DISTINCT name.value FROM kura_history, json_each(CASE WHEN json_valid(models) THEN "
        + "models ELSE json_array() END) AS name WHERE token > ?1 AND token <= ?2 "
        + "UNION SELECT DISTINCT name.key FROM kura_history, json_each(changes) AS name "
        + "WHERE token > ?1 AND token <= ?2 AND NOT json_valid(models)",
      [.integer(token.rawValue), .integer(latest.rawValue)]
    ) { $0.string(at: 0) }
    var models = Set(names)
    if try token.rawValue < trimmedThrough(db) {
      // Saves were trimmed unseen: every model may have changed.
      models.formUnion(try db.query("SELECT model FROM kura_models") { $0.string(at: 0) })
    }
    return (models, latest)
  }
}

/// Appends `ids` as a JSON array of strings.
private func appendJSONStrings(_ ids: [String], to json: inout [UInt8]) {
  json.append(UInt8(ascii: "["))
  for (index, id) in ids.enumerated() {
    if index > 0 { json.append(UInt8(ascii: ",")) }
    appendJSONString(id, to: &json)
  }
  json.append(UInt8(ascii: "]"))
}

/// Appends `text` as a JSON string literal, as UTF-8.
private func appendJSONString(_ text: String, to json: inout [UInt8]) {
  json.append(UInt8(ascii: "\""))
  var text = text
  text.withUTF8 { bytes in
    // Ids are almost always plain (UUIDs, digits): copy them whole.
    if !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
    {
      json.append(contentsOf: bytes)
      return
    }
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "\""): json.append(contentsOf: "\\\"".utf8)
      case UInt8(ascii: "\\"): json.append(contentsOf: "\\\\".utf8)
      case UInt8(ascii: "\n"): json.append(contentsOf: "\\n".utf8)
      case UInt8(ascii: "\r"): json.append(contentsOf: "\\r".utf8)
      case UInt8(ascii: "\t"): json.append(contentsOf: "\\t".utf8)
      case 0..<0x20: json.append(contentsOf: String(format: "\\u%04x", byte).utf8)
      default: json.append(byte)
      }
    }
  }
  json.append(UInt8(ascii: "\""))
}
