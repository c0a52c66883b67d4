import Foundation
import KuraBase
import KuraSQLite
import Synchronization

/// The store's change history: one row per save in `kura_history` (its token, time, the names
/// of the models it changed as a JSON array, and its change set in a compact form). The table
/// and how a token is handed out are the engine's (``StoreEngine/historyTableSQL``,
/// ``StoreConnection/appendHistory(time:models:changes:readingOldest:)``).
package enum ChangeHistory {
  /// Writes a change set; returns its token, and the oldest history row after it when the
  /// engine read it along (for ``trim(_:keeping:latest:now:state:plan:oldest:kept:)``). The change set is
  /// written compactly (see `ChangeHistoryFormat`); rows written as JSON text before are still
  /// read.
  package static func record(
    _ changes: [(model: String, changes: ChangeSet.ModelChanges)], date: Date,
    in db: StoreConnection, state: HistoryState
  ) throws -> (token: HistoryToken, oldest: (token: Int64, time: Double)?) {
    var scratch = HistoryScratch()
    return try record(SavedChanges(changes), date: date, in: db, scratch: &scratch)
  }

  /// ``record(_:date:in:state:)`` for a save, with what the saving context keeps from save to
  /// save (``HistoryScratch``): the change set is written in its buffer (no allocation), and
  /// the `models` text of its last save is used again while saves change the same models (most
  /// change the same one or two). `readingOldest` asks the engine to read the oldest history
  /// row in the same statement (``TrimPlan/readsOldest``).
  package static func record(
    _ changes: SavedChanges, date: Date, in db: StoreConnection, scratch: inout HistoryScratch,
    readingOldest: Bool = true
  ) throws -> (token: HistoryToken, oldest: (token: Int64, time: Double)?) {
    ChangeHistoryFormat.write(changes, into: &scratch.bytes)
    if !scratch.lists(changes) {
      var names: [String] = []
      changes.forEach { model, _ in names.append(model) }
      var json = "["
      for (index, name) in names.enumerated() {
        if index > 0 { json += "," }
        appendJSONString(name, to: &json)
      }
      scratch.names = names
      scratch.modelsJSON = json + "]"
    }
    let appended = try db.appendHistory(
      time: date.timeIntervalSince1970, models: scratch.modelsJSON, changes: scratch.bytes,
      readingOldest: readingOldest)
    return (HistoryToken(rawValue: appended.token), appended.oldest)
  }

  /// What a save's history trim needs, decided before the save appends its history row: the
  /// engine reads the oldest history row in the same statement only when asked
  /// (``StoreConnection/appendHistory(time:models:changes:readingOldest:)``).
  package struct TrimPlan: Sendable {
    /// Whether the trim needs the oldest history row as it is now.
    package var readsOldest: Bool
    /// Whether this save counts the newest rows (tokens with gaps, see
    /// ``HistoryState/countCheckIsDue()``).
    package var countsRows: Bool
  }

  /// How long a save trusts the time of the oldest history row it read before: a row someone
  /// made older meanwhile (an edit of the history) is trimmed at most this much later.
  package static let oldestTimeTrust: TimeInterval = 1

  /// What the trim of a save at `now` needs (``TrimPlan``); counts the save toward the next
  /// count check.
  ///
  /// History is only ever deleted from its oldest end and tokens only grow, so the oldest token
  /// seen before is a lower bound of the oldest token now, and while the retention keeps that
  /// row it keeps every row. Its time is a lower bound too (each row keeps its save's time, and
  /// a later save was made later; rows of a writer whose clock is behind are trimmed a little
  /// later), unless the history was edited: the save trusts it for ``oldestTimeTrust`` after
  /// it was read.
  package static func plan(
    keeping retention: HistoryRetention, state: HistoryState, now: Date, consecutiveTokens: Bool
  ) -> TrimPlan {
    let countsRows =
      retention.maximumCount != nil && !consecutiveTokens && state.countCheckIsDue()
    guard let known = state.oldest, !countsRows else {
      return TrimPlan(readsOldest: true, countsRows: countsRows)
    }
    if let age = retention.maximumAge {
      let seconds = now.timeIntervalSince1970
      let trusted = known.readAt <= seconds && seconds - known.readAt < oldestTimeTrust
      if !trusted || known.time < seconds - age {
        return TrimPlan(readsOldest: true, countsRows: false)
      }
    }
    return TrimPlan(readsOldest: false, countsRows: false)
  }

  /// Deletes the history `retention` no longer keeps (at most a bounded number of rows per
  /// save, so a save stays cheap), never the newest row, and records what was deleted.
  /// `oldest` is the oldest history row when the caller read it in this transaction after
  /// `latest` was written (then it is not read again); `plan` is what
  /// ``plan(keeping:state:now:consecutiveTokens:)`` said before the append.
  package static func trim(
    _ db: StoreConnection, keeping retention: HistoryRetention, latest: HistoryToken, now: Date,
    state: HistoryState, plan: TrimPlan, oldest knownOldest: (token: Int64, time: Double)? = nil,
    kept: ((StoreConnection) throws -> Int64?)? = nil
  ) throws {
    if let knownOldest {
      state.oldest = (knownOldest.token, knownOldest.time, now.timeIntervalSince1970)
      try trim(
        db, keeping: retention, latest: latest, now: now, state: state, from: knownOldest,
        countsRows: plan.countsRows, kept: kept)
      return
    }
    if !plan.readsOldest, let known = state.oldest {
      // Consecutive tokens: the count keeps every row while it keeps the oldest one known.
      guard let count = retention.maximumCount, db.engine.hasConsecutiveTokens,
        latest.rawValue - Int64(max(count, 1)) >= known.token
      else { return }
    }
    state.oldest = nil
    // The oldest kept save first (one primary-key step): most saves find nothing to trim and
    // stop here, without scanning the history for old rows.
    let oldestRow = try db.queryFirst("SELECT token, time FROM kura_history ORDER BY token LIMIT 1")
    {
      ($0.int64(at: 0), $0.double(at: 1))
    }
    guard let oldestRow else { return }
    state.oldest = (oldestRow.0, oldestRow.1, now.timeIntervalSince1970)
    try trim(
      db, keeping: retention, latest: latest, now: now, state: state, from: oldestRow,
      countsRows: plan.countsRows, kept: kept)
  }

  /// Deletes what `retention` no longer keeps, the oldest history row being `oldestRow`, and
  /// nothing after what `kept` returns (the save participant's ``SaveParticipant/keptHistory(_:)``).
  private static func trim(
    _ db: StoreConnection, keeping retention: HistoryRetention, latest: HistoryToken, now: Date,
    state: HistoryState, from oldestRow: (token: Int64, time: Double), countsRows: Bool,
    kept: ((StoreConnection) throws -> Int64?)?
  ) throws {
    let (oldest, oldestTime) = oldestRow
    var through: Int64 = 0
    if let count = retention.maximumCount, db.engine.hasConsecutiveTokens {
      if latest.rawValue - Int64(max(count, 1)) >= oldest {
        // More saves than the count: trimmed a hundredth of it further (at most 1,000 rows), so
        // the saves after this one find nothing to trim rather than each deleting one row.
        through =
          latest.rawValue - Int64(max(count, 1)) + Int64(max(0, min(count / 100, 1_000)))
      }
    } else if let count = retention.maximumCount, countsRows {
      // Tokens with gaps (PostgreSQL's follow transaction ids): the newest rows are counted,
      // again once this container has saved as many times as the count has room for (at most
      // a hundredth of it), so the history goes over the count by at most that much per
      // writing process.
      let kept = max(count, 1)
      let trimmedTo = max(1, kept - max(0, min(count / 100, 1_000)))
      // One walk down the newest rows: past the `trimmedTo` a trim keeps, the rows up to one
      // over the count (all of them there: the history is over it, and the first is the newest
      // one the trim deletes; fewer: they are all the history has past those).
      let past =
        try db.queryFirst(
          "SELECT count(*), max(token) FROM (SELECT token FROM kura_history ORDER BY token DESC "
            + "OFFSET ? LIMIT ?) AS kura_past",
          [.integer(Int64(trimmedTo)), .integer(Int64(kept - trimmedTo + 1))]
        ) { (Int($0.int64(at: 0)), $0.isNull(at: 1) ? nil : $0.int64(at: 1)) } ?? (0, nil)
      var left = trimmedTo + past.0
      if left > kept {
        if let found = past.1 { through = found }
        left = trimmedTo
      }
      state.scheduleCountCheck(afterSaves: max(1, min(kept - left + 1, count / 100)))
    }
    if let age = retention.maximumAge, oldestTime < now.timeIntervalSince1970 - age {
      let old = try db.queryFirst(
        "SELECT max(token) FROM (SELECT token, time FROM kura_history WHERE token < ? ORDER BY "
          + "token LIMIT 1000) AS oldest WHERE time < ?",
        [.integer(latest.rawValue), .real(now.timeIntervalSince1970 - age)]
      ) { $0.isNull(at: 0) ? nil : $0.int64(at: 0) }
      if let old = old ?? nil { through = max(through, old) }
    }
    through = min(through, latest.rawValue - 1)
    guard through > 0, oldest <= through else { return }
    // One trim at a time: another writer trimming now deletes these rows (or the next check
    // finds them).
    if let lock = db.engine.historyTrimLockSQL,
      try db.queryFirst(lock, row: { $0.int64(at: 0) }) != 1
    {
      return
    }
    through = min(through, try horizonCap(db))
    if let kept, let limit = try kept(db) { through = min(through, limit) }
    guard oldest <= through else { return }
    try deleteHistory(through: through, in: db)
    state.oldest = nil  // read again by the next save
  }

  /// Deletes the history rows up to `through` and records the trim: through `through` when
  /// tokens are consecutive, else through the last row deleted (a reader at a token after it
  /// lost nothing), nothing recorded when no row was deleted.
  package static func deleteHistory(through: Int64, in db: StoreConnection) throws {
    var recorded = through
    if !db.engine.hasConsecutiveTokens {
      let last = try db.queryFirst(
        "SELECT max(token) FROM kura_history WHERE token <= ?", [.integer(through)]
      ) { $0.isNull(at: 0) ? nil : $0.int64(at: 0) }
      guard let last, let last else { return }
      recorded = last
    }
    try db.run("DELETE FROM kura_history WHERE token <= ?", [.integer(through)])
    try recordTrim(through: recorded, in: db)
  }

  /// The last token a trim may delete through: below the horizon, so no row that commits later
  /// has a token the trim record covers (`Int64.max` on SQLite).
  package static func horizonCap(_ db: StoreConnection) throws -> Int64 {
    guard let horizon = try horizon(db) else { return .max }
    return horizon - 1
  }

  /// The first token a history row may still take or commit with (`nil` when rows commit in
  /// token order, on SQLite). Read it before the statements that read below it: they then see
  /// every row below it that will ever commit (see ``StoreEngine/historyHorizonSQL``).
  package static func horizon(_ db: StoreConnection) throws -> Int64? {
    guard let sql = db.engine.historyHorizonSQL else { return nil }
    return try db.queryFirst(sql) { $0.isNull(at: 0) ? 0 : $0.int64(at: 0) } ?? 0
  }

  /// ` AND token < ?` with the horizon as its argument, or nothing without a horizon.
  private static func below(_ horizon: Int64?) -> (sql: String, arguments: [DatabaseValue]) {
    guard let horizon else { return ("", []) }
    return (" AND token < ?", [.integer(horizon)])
  }

  /// Records that the history up to `token` is gone (readers from before it must refetch).
  package static func recordTrim(through token: Int64, in db: StoreConnection) throws {
    // Never lowered, also by writers trimming at once: a trim through an earlier token leaves
    // the record as it is (compared in the statement, which waits for the other's row lock).
    try db.run(
      "INSERT INTO kura_metadata (key, value) VALUES ('historyTrimmedThrough', ?) "
        + "ON CONFLICT (key) DO UPDATE SET value = CASE WHEN CAST(excluded.value AS BIGINT) > "
        + "CAST(kura_metadata.value AS BIGINT) THEN excluded.value ELSE kura_metadata.value END",
      [.text(String(token))])
  }

  /// The last token whose history was trimmed (0 when none was).
  package static func trimmedThrough(_ db: StoreConnection) throws -> Int64 {
    let text = try db.queryFirst(
      "SELECT value FROM kura_metadata WHERE key = 'historyTrimmedThrough'"
    ) { $0.string(at: 0) }
    return text.flatMap { Int64($0) } ?? 0
  }

  /// The token of the last save below the horizon (``HistoryToken/start`` before any): the
  /// history since it misses no save, also one that commits later with a smaller token.
  package static func latestToken(_ db: StoreConnection) throws -> HistoryToken {
    let below = below(try horizon(db))
    let value = try db.queryFirst(
      "SELECT coalesce(max(token), 0) FROM kura_history WHERE token > 0" + below.sql,
      below.arguments
    ) {
      $0.int64(at: 0)
    }
    guard db.engine.hasConsecutiveTokens else {
      // Every row up to the trim's token is gone for good (trims stay below the horizon), so a
      // reader may start there even while the rows after it are still above the horizon.
      return HistoryToken(rawValue: max(value ?? 0, try trimmedThrough(db)))
    }
    return HistoryToken(rawValue: value ?? 0)
  }

  /// The change sets after `token` below `horizon` (see ``horizon(_:)``), oldest first.
  package static func changeSets(
    since token: HistoryToken, below horizon: Int64?, in db: StoreConnection
  )
    throws -> [ChangeSet]
  {
    let below = below(horizon)
    return try db.query(
      "SELECT token, time, changes FROM kura_history WHERE token > ?" + below.sql
        + " ORDER BY token",
      [.integer(token.rawValue)] + below.arguments
    ) { row in
      var changes: [String: ChangeSet.ModelChanges] = [:]
      if case .blob(let data) = row.value(at: 2) {
        changes = try ChangeHistoryFormat.decode(data)
      } else {
        // Rows written before the compact format: a JSON object of `[inserted, updated, deleted]`.
        let lists = try JSONDecoder().decode(
          [String: [[String]]].self, from: Data(row.string(at: 2).utf8))
        for (model, list) in lists where list.count == 3 {
          changes[model] = ChangeSet.ModelChanges(
            inserted: list[0], updated: list[1], deleted: list[2])
        }
      }
      return ChangeSet(
        token: HistoryToken(rawValue: row.int64(at: 0)),
        date: Date(timeIntervalSince1970: row.double(at: 1)), changes: changes)
    }
  }

  /// The model names changed after `token`, and the latest token (cheap: no JSON decoding).
  package static func changedModels(
    since token: HistoryToken, below horizon: Int64?, in db: StoreConnection
  ) throws -> (models: Set<String>, latest: HistoryToken) {
    let below = below(horizon)
    let found = try db.queryFirst(
      "SELECT max(token) FROM kura_history WHERE token > ?" + below.sql,
      [.integer(token.rawValue)] + below.arguments
    ) { $0.isNull(at: 0) ? token : HistoryToken(rawValue: $0.int64(at: 0)) }
    let latest = found ?? token
    // Bounded by `latest`: a save committed meanwhile is left for the next call.
    var models = Set(
      try db.changedModelNames(after: token.rawValue, through: latest.rawValue))
    if try token.rawValue < trimmedThrough(db) {
      // Saves were trimmed unseen: every model may have changed.
      models.formUnion(try db.query("SELECT model FROM kura_models") { $0.string(at: 0) })
    }
    return (models, latest)
  }

  /// Whether rows after `token` have committed above the horizon (PostgreSQL: a writer with a
  /// smaller transaction id still runs, or ended without a notification): a reader reads
  /// again later to deliver them. Always `false` on SQLite.
  package static func hasRowsAboveHorizon(
    after token: HistoryToken, horizon: Int64?, in db: StoreConnection
  ) throws -> Bool {
    guard let horizon else { return false }
    return try db.queryFirst(
      "SELECT 1 FROM kura_history WHERE token > ? AND token >= ? LIMIT 1",
      [.integer(token.rawValue), .integer(horizon)]
    ) { _ in true } ?? false
  }

  /// Whether the history after `token` is still whole: `false` when saves after it were trimmed
  /// (a reader at `token` would skip them).
  package static func isKept(after token: HistoryToken, in db: StoreConnection) throws -> Bool {
    token.rawValue >= (try trimmedThrough(db))
  }
}

/// What a container's saves learned about its store's history table. Only ever a lower bound
/// (history is deleted from its oldest end, tokens grow), so acting on it stays correct when
/// other connections or processes write meanwhile.
package final class HistoryState: Sendable {
  private let oldestRow = Mutex<(token: Int64, time: Double, readAt: Double)?>(nil)
  private let latestSeen = Mutex<Int64?>(nil)

  /// A lower bound of the latest token (the last one this container read or wrote), or `nil`.
  /// A save that records no history returns it: reading history since it never misses a save.
  package var latest: Int64? {
    get { latestSeen.withLock { $0 } }
    set { latestSeen.withLock { $0 = newValue } }
  }

  private let savesUntilCountCheck = Mutex(0)

  /// Whether this save counts the history rows (tokens with gaps, see ``ChangeHistory/trim``):
  /// `true` for the first save and then as ``scheduleCountCheck(afterSaves:)`` said.
  package func countCheckIsDue() -> Bool {
    savesUntilCountCheck.withLock { saves in
      saves -= 1
      return saves <= 0
    }
  }

  /// Makes the `saves`th save from now count the history rows.
  package func scheduleCountCheck(afterSaves saves: Int) {
    savesUntilCountCheck.withLock { $0 = saves }
  }

  /// A lower bound of the oldest history row (token and time) and when it was read (seconds
  /// since 1970, the reading save's time), or `nil` when not known.
  package var oldest: (token: Int64, time: Double, readAt: Double)? {
    get { oldestRow.withLock { $0 } }
    set { oldestRow.withLock { $0 = newValue } }
  }
}

/// What a context keeps from save to save for its history rows: the buffer a row's change set
/// is written in, and the names of the models its last save changed with their `models` text
/// (a JSON array).
package struct HistoryScratch {
  /// The buffer of the change set's compact form (``ChangeHistoryFormat``).
  package var bytes: [UInt8] = []
  /// The models of the last row, in order.
  package var names: [String] = []
  /// The `models` text of the last row; empty before the first.
  package var modelsJSON = ""

  /// Whether `changes` are of the models of the last row, in the same order.
  package func lists(_ changes: SavedChanges) -> Bool {
    guard !modelsJSON.isEmpty, names.count == changes.count else { return false }
    var index = 0
    var same = true
    changes.forEach { model, _ in
      if same && names[index] != model { same = false }
      index += 1
    }
    return same
  }
}
