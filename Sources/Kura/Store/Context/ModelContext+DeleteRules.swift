import Foundation

/// Applies the declared delete rules of a save, inside its write transaction and before its
/// changes are written: finds the rows that refer to the deleted ones, level by level, deletes
/// (``DeleteRule/cascade``) or clears (``DeleteRule/nullify``) them, and refuses the save when a
/// ``DeleteRule/deny`` reference remains.
struct DeleteRuleApplier {
  let graph: RelationshipGraph
  let db: Connection

  /// What the rules did: extra deleted and updated keys, by table; and the `.deny` references
  /// to check once the save's own changes are written (``checkDenials(_:)``).
  struct Outcome {
    var deleted: [String: [SQLiteValue]] = [:]
    var updated: [String: [SQLiteValue]] = [:]
    var denials: [(reference: ModelAttributes.Reference, targets: [SQLiteValue])] = []
  }

  /// Applies the rules for the keys a save deletes (by table).
  func apply(deleting initial: [String: [SQLiteValue]]) throws -> Outcome {
    var outcome = Outcome()
    guard !graph.isEmpty else { return outcome }
    var deleting: [String: Set<SQLiteValue>] = initial.mapValues { Set($0) }
    var queue: [(table: String, keys: [SQLiteValue])] = initial.map { ($0.key, $0.value) }
    var nullify: [(reference: ModelAttributes.Reference, keys: [SQLiteValue])] = []
    var denied: [(reference: ModelAttributes.Reference, rows: [(SQLiteValue, SQLiteValue)])] = []
    var keyColumns: [String: String] = [:]
    while let (table, keys) = queue.popLast() {
      guard !keys.isEmpty, let references = graph.referencesByTarget[table] else { continue }
      for reference in references where reference.deleteRule != .noAction {
        let rows = try referringRows(reference, to: keys)
        guard !rows.isEmpty else { continue }
        switch reference.deleteRule {
        case .cascade:
          keyColumns[reference.table] = reference.primaryKey
          var added: [SQLiteValue] = []
          for (key, _) in rows where deleting[reference.table, default: []].insert(key).inserted {
            added.append(key)
          }
          outcome.deleted[reference.table, default: []] += added
          queue.append((reference.table, added))
        case .nullify:
          nullify.append((reference, rows.map(\.0)))
        case .deny:
          denied.append((reference, rows))
        case .noAction:
          break
        }
      }
    }
    for (reference, rows) in denied {
      let blocking = rows.filter { !(deleting[reference.table]?.contains($0.0) ?? false) }
      guard !blocking.isEmpty else { continue }
      // Checked against the state the save produces: the save may move these rows elsewhere.
      outcome.denials.append((reference, Array(Set(blocking.map(\.1)))))
    }
    for (reference, keys) in nullify {
      let remaining = keys.filter { !(deleting[reference.table]?.contains($0) ?? false) }
      guard !remaining.isEmpty else { continue }
      try db.run(
        "UPDATE \(quoteIdentifier(reference.table)) SET \(quoteIdentifier(reference.column)) = "
          + "NULL WHERE \(quoteIdentifier(reference.primaryKey)) IN "
          + "(SELECT value FROM json_each(?))", [.text(jsonArray(remaining))])
      outcome.updated[reference.table, default: []] += remaining
    }
    for (table, keys) in outcome.deleted where !keys.isEmpty {
      guard let key = keyColumns[table] else { continue }
      try db.run(
        "DELETE FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(key)) IN "
          + "(SELECT value FROM json_each(?))", [.text(jsonArray(keys))])
    }
    return outcome
  }

  /// Refuses the save when, with its changes written, a row still refers through a `.deny`
  /// reference to a model it deletes.
  func checkDenials(_ outcome: Outcome) throws {
    for (reference, targets) in outcome.denials {
      let rows = try referringRows(reference, to: targets)
      if !rows.isEmpty { throw denial(reference, rows) }
    }
  }

  /// The (key, reference value) of the rows whose reference points at one of `keys`.
  private func referringRows(_ reference: ModelAttributes.Reference, to keys: [SQLiteValue])
    throws -> [(SQLiteValue, SQLiteValue)]
  {
    try db.query(
      "SELECT \(quoteIdentifier(reference.primaryKey)), \(quoteIdentifier(reference.column)) "
        + "FROM \(quoteIdentifier(reference.table)) WHERE \(reference.comparedColumn) "
        + "IN (SELECT value FROM json_each(?))", [.text(jsonArray(keys))]
    ) { row in (row.value(at: 0), row.value(at: 1)) }
  }

  private func denial(
    _ reference: ModelAttributes.Reference, _ rows: [(SQLiteValue, SQLiteValue)]
  ) -> StoreError {
    let targets = Array(Set(rows.map { idText($0.1) })).sorted()
    let shown = rows.prefix(10).map { "`\(idText($0.0))`" }.joined(separator: ", ")
    let more = rows.count > 10 ? " and \(rows.count - 10) more" : ""
    let what =
      targets.count == 1
      ? "`\(reference.targetModel)` `\(targets[0])`"
      : "\(targets.count) `\(reference.targetModel)` models"
    return StoreError(
      .deleteDenied, model: reference.model, property: reference.column,
      message:
        "Can't delete \(what): \(rows.count) `\(reference.model)` "
        + "\(rows.count == 1 ? "row refers" : "rows refer") to it through "
        + "`\(reference.column)`, whose delete rule is `.deny` (\(shown)\(more)). Delete or "
        + "reassign \(rows.count == 1 ? "it" : "them") first; nothing was saved.")
  }
}

/// A JSON array of stored keys, for binding a list to `json_each(?)`.
func jsonArray(_ keys: [SQLiteValue]) -> String {
  var json = "["
  json.reserveCapacity(keys.count * 40 + 2)
  for (index, key) in keys.enumerated() {
    if index > 0 { json += "," }
    switch key {
    case .integer(let integer): json += String(integer)
    case .real(let real): json += String(real)
    default: appendJSONString(idText(key), to: &json)
    }
  }
  return json + "]"
}

/// Appends `text` as a JSON string literal.
func appendJSONString(_ text: String, to json: inout String) {
  // Ids are almost always plain (UUIDs, digits): copy them whole.
  if !text.utf8.contains(where: {
    $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
  }) {
    json += "\""
    json += text
    json += "\""
    return
  }
  json += "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": json += "\\\""
    case "\\": json += "\\\\"
    case "\n": json += "\\n"
    case "\r": json += "\\r"
    case "\t": json += "\\t"
    default:
      if scalar.value < 0x20 {
        json += String(format: "\\u%04x", scalar.value)
      } else {
        json.unicodeScalars.append(scalar)
      }
    }
  }
  json += "\""
}
