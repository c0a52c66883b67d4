import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncServer

// The page's JSON: the store and its models, pages of rows, one row with what refers to it,
// the integrity check and the history.

extension Studio {
  struct StoreSummary: Encodable {
    var name: String
    var engine: String
    var location: String
    var sizeBytes: Int
    var schemaVersion: Int?
    var writable: Bool
    /// The app of `--app`, whose preferences, scenes and documents `/api/app` shows.
    var app: String?
    /// The sync server of `--sync-server`, whose spaces `/api/sync-server` shows.
    var syncServer: String?
    /// Whether the store syncs (it has the sync client's tables): `/api/sync` shows them.
    var synced: Bool = false
    var history: History?
    var models: [BrowsedModel]

    struct History: Encodable {
      var count: Int
      var oldest: Int64?
      var latest: Int64
      var trimmedThrough: Int64
      var oldestDate: Double?
    }
  }

  func models() throws -> StudioResponse {
    guard store != nil else {
      return .json(
        StoreSummary(
          name: storeName, engine: "none",
          location: syncServer.map { "sync server \($0.name)" } ?? "no model store",
          sizeBytes: 0, schemaVersion: nil, writable: false, app: app?.locations.appIdentifier,
          syncServer: syncServer?.name, history: nil, models: []))
    }
    let inspector = try inspector()
    let info = try inspector.info()
    let history = try inspector.historySummary().map {
      StoreSummary.History(
        count: $0.count, oldest: $0.oldest, latest: $0.latest, trimmedThrough: $0.trimmedThrough,
        oldestDate: $0.oldestDate?.timeIntervalSince1970)
    }
    return .json(
      StoreSummary(
        name: storeName, engine: info.engine.rawValue, location: info.location,
        sizeBytes: info.sizeBytes, schemaVersion: info.schemaVersion, writable: editor != nil,
        app: app?.locations.appIdentifier, syncServer: nil,
        synced: try inspector.tableExists("kura_sync_outbox"), history: history,
        models: try inspector.browsedModels()))
  }

  func check() throws -> StudioResponse {
    let problems = try inspector().check()
    return .json(["problems": problems])
  }

  /// The model a request names (`model=`), with the inspector that read it.
  func model(_ query: [String: String]) throws -> (StoreInspector, BrowsedModel, [BrowsedModel]) {
    guard let name = query["model"] else {
      throw StudioRequestError(message: "Give the model: ?model=Name.")
    }
    let inspector = try inspector()
    let models = try inspector.browsedModels(counting: false)
    guard let model = models.first(where: { $0.name == name }) else {
      throw StudioRequestError(
        message: "The store has no model `\(name)`. Its models: "
          + models.map { "`\($0.name)`" }.joined(separator: ", ") + ".")
    }
    return (inspector, model, models)
  }

  /// The rows query a request describes: `sort`, `desc=1`, `q` (search), `f` (the filters as
  /// JSON: `[{"property": "name", "op": "==", "value": "Kyoto"}]`), `after`, `limit`.
  func rowQuery(_ query: [String: String]) throws -> RowQuery {
    var rows = RowQuery()
    rows.sort = query["sort"].flatMap { $0.isEmpty ? nil : $0 }
    rows.descending = query["desc"] == "1"
    rows.search = query["q"]
    if let filters = query["f"], !filters.isEmpty {
      do {
        rows.filters = try JSONDecoder().decode([RowFilter].self, from: Data(filters.utf8))
      } catch {
        throw StudioRequestError(
          message: "The filter is not readable: give f=[{\"property\":…,\"op\":…,\"value\":…}] "
            + "with op one of "
            + RowFilter.Operator.allCases.map { "`\($0.rawValue)`" }
            .joined(separator: ", ") + ".")
      }
    }
    if let after = query["after"], !after.isEmpty {
      guard let cursor = RowCursor(token: after) else {
        throw StudioRequestError(message: "`after` is not a page position this studio made.")
      }
      rows.after = cursor
    }
    if let limit = query["limit"].flatMap({ Int($0) }) { rows.limit = min(max(limit, 1), 500) }
    return rows
  }

  struct PageAnswer: Encodable {
    struct Row: Encodable {
      var key: String
      var cells: [StudioCell]
    }
    var model: String
    var columns: [BrowsedModel.Column]
    var rows: [Row]
    var next: String?
    var inMemory: [String]
    var condition: String?
    var scanned: Int
    var stoppedAtScanLimit: Bool
  }

  func rows(_ query: [String: String]) throws -> StudioResponse {
    let (inspector, model, _) = try model(query)
    let page = try inspector.page(of: model, try rowQuery(query))
    return .json(answer(page, model: model))
  }

  func answer(_ page: RowPage, model: BrowsedModel) -> PageAnswer {
    let keyIndex = page.columns.firstIndex(where: { $0.name == model.primaryKey.name }) ?? 0
    return PageAnswer(
      model: model.name, columns: page.columns,
      rows: page.rows.map { values in
        PageAnswer.Row(
          key: RowCursor.keyToken(values[keyIndex]),
          cells: zip(values, page.columns).map { StudioCell($0, kind: $1.kind) })
      }, next: page.next?.token, inMemory: page.inMemory, condition: page.condition,
      scanned: page.scanned, stoppedAtScanLimit: page.stoppedAtScanLimit)
  }

  struct RowAnswer: Encodable {
    struct Referrers: Encodable {
      var model: String
      var property: String
      var deleteRule: String
      var count: Int
      var keys: [String]
      var shown: [String]
    }
    var model: String
    var key: String
    var columns: [BrowsedModel.Column]
    var cells: [StudioCell]
    var references: [BrowsedModel.Reference]
    var referrers: [Referrers]
  }

  func row(_ query: [String: String]) throws -> StudioResponse {
    let (inspector, model, models) = try model(query)
    guard let token = query["key"], let key = RowCursor.keyValue(token: Substring(token)) else {
      throw StudioRequestError(message: "Give the row's key: ?key=… as the rows page links it.")
    }
    guard let values = try inspector.row(of: model, key: key) else {
      return .error(404, "`\(model.name)` has no row with this key (it may have been deleted).")
    }
    let referrers = try inspector.referrers(to: model, key: key, among: models).map {
      RowAnswer.Referrers(
        model: $0.referrer.model, property: $0.referrer.property,
        deleteRule: $0.referrer.deleteRule, count: $0.count,
        keys: $0.keys.map(RowCursor.keyToken), shown: $0.keys.map(Self.shown))
    }
    return .json(
      RowAnswer(
        model: model.name, key: token, columns: model.columns,
        cells: zip(values, model.columns).map { StudioCell($0, kind: $1.kind) },
        references: model.references, referrers: referrers))
  }

  /// A key as a person reads it.
  static func shown(_ value: DatabaseValue) -> String {
    switch value {
    case .text(let text): return text
    case .integer(let number): return String(number)
    default: return value.description
    }
  }

  struct HistoryAnswer: Encodable {
    struct Entry: Encodable {
      var token: Int64
      var date: Double
      var changes: [String: ChangeSet.ModelChanges]
    }
    var latest: Int64
    var changeSets: [Entry]
  }

  func history(_ query: [String: String]) throws -> StudioResponse {
    let limit = min(max(query["limit"].flatMap { Int($0) } ?? 50, 1), 1_000)
    let inspector = try inspector()
    let changeSets = try inspector.changeSets(after: 0, limit: limit)
    return .json(
      HistoryAnswer(
        latest: try inspector.latestHistoryToken(),
        changeSets: changeSets.reversed().map(Self.entry)))
  }

  static func entry(_ changeSet: ChangeSet) -> HistoryAnswer.Entry {
    HistoryAnswer.Entry(
      token: changeSet.token.rawValue, date: changeSet.date.timeIntervalSince1970,
      changes: changeSet.changes)
  }

  /// Server-sent events: `hello` with the latest token, then `change` with each change set
  /// saved (by any process), from the store's change feed.
  func events() -> StudioResponse {
    if store == nil {
      // No store to watch: the page is told so, and the stream stays open.
      return .eventStream { send in
        _ = send("hello", "{\"latest\":0}")
        return {}
      }
    }
    // Subscribed before `hello` is sent: a save made as soon as the page has its `hello` (a
    // test's, or a person's quick one) comes after the subscription, never in a gap before it.
    let changes: AsyncThrowingStream<ChangeSet, any Error>
    let latest: Int64
    do {
      let feed = try changeFeed()
      changes = try feed.changeSets()
      latest = try feed.currentHistoryToken().rawValue
    } catch {
      return .error(500, "Can't watch the store: \(error)")
    }
    return .eventStream { send in
      let task = Task {
        _ = send("hello", "{\"latest\":\(latest)}")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
          for try await changeSet in changes {
            let data = try encoder.encode(Self.entry(changeSet))
            if !send("change", String(decoding: data, as: UTF8.self)) { break }
          }
        } catch {
          _ = send("failure", "{\"error\":\(Self.jsonString("\(error)"))}")
        }
      }
      return { task.cancel() }
    }
  }

  /// `text` as a JSON string.
  static func jsonString(_ text: String) -> String {
    let data = (try? JSONEncoder().encode([text])) ?? Data("[\"\"]".utf8)
    return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
  }
}
