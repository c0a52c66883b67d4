import Dispatch
import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore
import Synchronization

/// A replica's first pull of its space (and a rebase from a snapshot, which is a first pull
/// again): resumable after a kill and atomic for readers.
///
/// The pages the server sends are kept as they came, in a staging table of the store, one local
/// transaction per page that also records how far the staging got — so a replica killed in the
/// middle asks for the page after the last one it kept, never for the first again. The head
/// the server had at the first page is the target; once a page reaches it, every staged save is
/// merged and written into the model tables in one transaction with one history entry. A
/// `LiveQuery` or ``ModelContainer/changeSets()`` reader sees nothing of the initial sync, then
/// all of it. Local saves made meanwhile go to the outbox as usual; their stamps decide against
/// the pulled values when the staged saves are applied.
///
/// A store is initializing until its first pull is applied: its cursor is 0 and it has not
/// recorded that the initial sync ended.
package enum SyncInitialSync {
  package static let schemaSQL = """
    CREATE TABLE IF NOT EXISTS kura_sync_staging (number INTEGER PRIMARY KEY, page BLOB NOT NULL);
    """

  /// Whether the store has not finished its initial sync.
  package static func isInitializing(_ db: StoreConnection) throws -> Bool {
    try SyncLocalStore.cursor(db) == 0 && SyncLocalStore.state("initialized", db) == nil
  }

  /// Where the staging stands: the position to pull after, and the head to reach (`nil` before
  /// the first page).
  package static func progress(_ db: StoreConnection) throws -> (after: Int64, target: Int64?) {
    let after = Int64(try SyncLocalStore.state("stagedThrough", db) ?? "0") ?? 0
    let target = try SyncLocalStore.state("stagingTarget", db).flatMap { Int64($0) }
    return (after, target)
  }

  /// What staging needs of a pulled page: the head and the last save's position — read from
  /// the page's start (`{"head":H,"last":P,`, as a server of this version writes it) without
  /// parsing the rest, else decoded (only these members; the apply decodes the changes once,
  /// at the end).
  package struct PageSummary: Decodable {
    package struct Save: Decodable { var position: Int64 }
    package var head: Int64
    package var last: Int64?

    private enum CodingKeys: String, CodingKey { case head, saves }

    package init(head: Int64, last: Int64?) {
      self.head = head
      self.last = last
    }

    package init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      head = try container.decode(Int64.self, forKey: .head)
      last = try container.decode([Save].self, forKey: .saves).last?.position
    }

    /// The summary of a page's body; `nil` when it is not a page.
    package init?(body: Data) {
      if let summary = Self.prefix(body) {
        self = summary
      } else if let summary = try? JSONDecoder().decode(Self.self, from: body) {
        self = summary
      } else {
        return nil
      }
    }

    /// `{"head":H,"last":P,"longPoll":true,"saves":[` (or without `"last":P,` for an empty page)
    /// read from the body's first bytes.
    private static func prefix(_ body: Data) -> PageSummary? {
      var bytes = body.prefix(80).makeIterator()
      func expect(_ text: String) -> Bool {
        text.utf8.allSatisfy { bytes.next() == $0 }
      }
      func number(ending end: UInt8) -> Int64? {
        var value: Int64 = 0
        var digits = 0
        while let byte = bytes.next() {
          if byte == end { return digits > 0 ? value : nil }
          guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 18 else {
            return nil
          }
          value = value * 10 + Int64(byte - UInt8(ascii: "0"))
          digits += 1
        }
        return nil
      }
      guard expect(#"{"head":"#), let head = number(ending: UInt8(ascii: ",")),
        expect(#"""#), let next = bytes.next()
      else { return nil }
      if next == UInt8(ascii: "l"), expect(#"ast":"#), let last = number(ending: UInt8(ascii: ",")),
        expect(#""longPoll":true,"saves":["#)
      {
        return PageSummary(head: head, last: last)
      }
      // An empty page: `"longPoll":true,"saves":[]}`.
      return nil
    }
  }

  /// Keeps one pulled page (its body as the server sent it) and how far the staging got.
  ///
  /// - Returns: Whether the staging reached its target (the head of the first page).
  package static func stage(_ page: PageSummary, body: Data, _ db: StoreConnection) throws -> Bool {
    let target: Int64
    if let kept = try progress(db).target {
      target = kept
    } else {
      target = page.head
      try SyncLocalStore.setState("stagingTarget", String(target), db)
    }
    guard let last = page.last else { return true }
    try db.run("INSERT INTO kura_sync_staging (page) VALUES (?)", [.blob(body)])
    try SyncLocalStore.setState("stagedThrough", String(last), db)
    return last >= target
  }

  /// Empties the staging and forgets how far it got (the snapshot's part too).
  package static func forgetStaging(_ db: StoreConnection) throws {
    try db.run("DELETE FROM kura_sync_staging")
    try db.run(
      "DELETE FROM kura_sync_state WHERE key IN ('stagedThrough', 'stagingTarget', "
        + "'snapshotModel', 'snapshotID', 'snapshotDone', 'snapshotPosition', "
        + "'snapshotAcknowledged')")
  }

  /// How many pages are staged.
  package static func stagedPages(_ db: StoreConnection) throws -> Int {
    Int(try db.queryFirst("SELECT count(*) FROM kura_sync_staging") { $0.int64(at: 0) } ?? 0)
  }

  /// Merges every staged save into the store in the caller's transaction (one history entry),
  /// empties the staging and records that the initial sync ended; a rebase first settles the
  /// outbox against the snapshot (``SyncRebase/reconcile(known:_:)``).
  ///
  /// - Returns: The change set recorded in the history (empty when nothing visible changed).
  package static func applyStaged(container: ModelContainer, db: StoreConnection) throws
    -> ChangeSet.ModelChangesByModel
  {
    // The outbox is complete before a rebase reconciles it (local saves recorded).
    try SyncLocalStore.recordLocalSaves(container: container, db: db)
    let pages = try db.query("SELECT number, page FROM kura_sync_staging ORDER BY number") {
      ($0.int64(at: 0), $0.value(at: 1))
    }
    var saves: [SyncLoggedSave] = []
    var snapshotRows: [SyncSnapshotRow] = []
    for page in try decodeStaged(pages) {
      switch page {
      case .log(let pageSaves): saves += pageSaves
      case .snapshot(let rows): snapshotRows += rows
      }
    }
    let rebasing = try SyncRebase.isRequired(db)
    if rebasing {
      var known = Set(snapshotRows.map { SyncMergeState.Key(model: $0.model, id: $0.id) })
      for save in saves {
        for change in save.changes {
          known.insert(SyncMergeState.Key(model: change.model, id: change.id))
        }
      }
      var snapshot = try SyncRebase.snapshotSave(snapshotRows, db)
      snapshot.changes += try SyncRebase.reconcile(known: known, db)
      saves.insert(snapshot, at: 0)
    }
    var changes: ChangeSet.ModelChangesByModel = [:]
    if !saves.isEmpty {
      changes = try SyncLocalStore.applyPulled(saves, container: container, db: db)
    }
    try forgetStaging(db)
    try db.run("DELETE FROM kura_sync_state WHERE key = 'rebase'")
    try SyncLocalStore.setState("initialized", "1", db)
    return changes
  }

  /// A staged page, decoded: a page of the log's saves, or one of the snapshot's rows.
  private enum StagedPage: Sendable {
    case log([SyncLoggedSave])
    case snapshot([SyncSnapshotRow])
  }

  /// Decodes the staged pages (`number`, `page` rows), several at once on as many threads as
  /// there are cores, in their order: each page decodes by itself, and decoding is the largest part
  /// of an initial sync.
  ///
  /// - Throws: ``SyncError`` naming the first staged page that isn't one.
  private static func decodeStaged(_ pages: [(Int64, DatabaseValue)]) throws -> [StagedPage] {
    let decoded = Mutex([StagedPage?](repeating: nil, count: pages.count))
    let firstDamaged = Mutex<Int64?>(nil)
    DispatchQueue.concurrentPerform(iterations: pages.count) { index in
      let (number, value) = pages[index]
      var page: StagedPage?
      if case .blob(let body) = value {
        if body.first == UInt8(ascii: "S") {
          page = (try? JSONDecoder().decode(SyncSnapshotResponse.self, from: body.dropFirst()))
            .map { .snapshot($0.rows) }
        } else {
          page = (try? SyncJSONReader.decodePage(body)).map { .log($0.saves) }
        }
      }
      if let page {
        decoded.withLock { $0[index] = page }
      } else {
        firstDamaged.withLock { $0 = min($0 ?? number, number) }
      }
    }
    if let number = firstDamaged.withLock({ $0 }) { throw damaged(number) }
    return decoded.withLock { $0.compactMap { $0 } }
  }

  private static func damaged(_ number: Int64) -> SyncError {
    SyncError(
      .serverError,
      message:
        "Can't finish the initial sync: staged page \(number) is not a page of changes "
        + "(damaged, or a server's answer this version can't read). Nothing was applied; the "
        + "pages are pulled again at the next exchange.")
  }
}

extension SyncInitialSync {
  /// The initial sync or a rebase, when the store needs one: pulls and stages pages (the
  /// snapshot first when rebasing; resuming after the last staged page) until the head the
  /// first log page named, then applies them in one transaction.
  ///
  /// - Parameters:
  ///   - container: The replica's container.
  ///   - pull: Sends `GET …/<endpoint>?<query>` and returns the body.
  package static func runIfNeeded(
    container: ModelContainer, pull: (_ endpoint: String, _ query: String) async throws -> Data
  ) async throws {
    let needed = try container.pool.read { db in
      try isInitializing(db) || SyncRebase.isRequired(db)
    }
    guard needed else { return }
    try container.pool.write { try $0.execute(schemaSQL) }
    let replica = try container.pool.read { try SyncStamp.hex(SyncLocalStore.replica($0)) }
    let decoder = JSONDecoder()
    while true {
      let (rebasing, snapshotNext, after) = try container.pool.read { db in
        (try SyncRebase.isRequired(db), try SyncRebase.snapshotNext(db), try progress(db).after)
      }
      if rebasing, let next = snapshotNext {
        let model = next.model.addingPercentEncoding(withAllowedCharacters: .alphanumerics)
        let id = next.id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)
        let body = try await pull(
          "snapshot", "replica=\(replica)&model=\(model ?? "")&id=\(id ?? "")")
        guard let page = try? decoder.decode(SyncSnapshotResponse.self, from: body) else {
          throw SyncError(
            .serverError, message: "The sync server's answer to a snapshot read is not one.")
        }
        try container.pool.write { try SyncRebase.stage(page, body: body, $0) }
        continue
      }
      let body: Data
      do {
        body = try await pull(
          "changes", "after=\(after)&limit=\(SyncPullResponse.maximumSaves)&replica=\(replica)")
      } catch let error as SyncError where error.status == 410 && !rebasing {
        // The log was compacted past this new replica's start: read the snapshot instead.
        try container.pool.write { try SyncRebase.begin($0) }
        continue
      }
      guard let page = PageSummary(body: body) else {
        throw SyncError.notAnAnswer(to: "pull", from: nil)
      }
      if try container.pool.write({ try stage(page, body: body, $0) }) { break }
    }
    let changes: ChangeSet.ModelChangesByModel
    do {
      changes = try container.pool.write { db in try applyStaged(container: container, db: db) }
    } catch let error as SyncError where error.code == .serverError {
      // A staged page that doesn't decode as a whole: start the staging again, from the first
      // page, at the next exchange (the server's data is all it held).
      try container.pool.write { try forgetStaging($0) }
      throw error
    }
    if !changes.isEmpty { container.hub.didSave() }
  }
}

extension SyncInitialSync {
  /// The replica's part of a pull's query: its id and its settled position — the cursor, when
  /// the outbox is empty (every save made before it had the changes up to there is
  /// acknowledged), else 0 (the server keeps the highest it was told).
  package static func settledQuery(_ db: StoreConnection) throws -> String {
    let replica = SyncStamp.hex(try SyncLocalStore.replica(db))
    let settled = try SyncLocalStore.pendingCount(db) == 0 ? try SyncLocalStore.cursor(db) : 0
    return "replica=\(replica)&settled=\(settled)"
  }
}
