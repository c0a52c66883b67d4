import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncServer

// `kura studio --app NAME [--group GROUP]`: the app's other layers beside its model store —
// its preference suites (keys, types, values), its scenes' states, its documents (the JSON
// with the journal's changes applied, and the journal's state). Read-only, read afresh at
// each request; the page is kept current by the events of `Studio+AppEvents.swift`.

/// Where one app's data is (``Locations``), and the App Group it shares, if any.
package struct StudioApp: Sendable {
  /// The app's folders.
  package var locations: Locations
  /// The App Group identifier (`group.…`), if any.
  package var group: String?

  package init(locations: Locations, group: String?) {
    self.locations = locations
    self.group = group
  }
}

extension Studio {
  struct AppAnswer: Encodable {
    var app: String
    var group: String?
    var paths: [String: String]
    var store: String?
    var suites: [Suite]
    var scenes: [Suite]
    var documents: [Document]
  }

  struct Suite: Encodable {
    struct Entry: Encodable {
      var key: String
      var type: String
      var value: String
    }
    var name: String
    var file: String
    var keys: [Entry]
    var error: String?
  }

  struct Document: Encodable {
    struct Journal: Encodable {
      var bytes: Int
      var records: Int
      /// `pending` (changes not yet compacted into the file, shown applied), `compacted`,
      /// `stale` (for an earlier file: its changes are in the file), `foreign` (holds changes
      /// the file lacks: another program replaced the file), `torn`, or `damaged`.
      var state: String
      var detail: String?
    }
    var name: String
    var path: String
    var bytes: Int
    var json: String?
    var journal: Journal?
    var error: String?
  }

  /// The largest document the page shows.
  static let shownDocumentBytes = 4 << 20

  func appAnswer(_ app: StudioApp) -> AppAnswer {
    let locations = app.locations
    var paths = [
      "data": locations.dataDirectory.path, "documents": locations.documentsDirectory.path,
      "preferences": locations.preferencesDirectory.path,
      "scenes": locations.sceneStateDirectory.path,
    ]
    var suites: [Suite] = []
    let preferenceFiles =
      ((try? FileManager.default.contentsOfDirectory(atPath: locations.preferencesDirectory.path))
      ?? []).filter { $0.hasSuffix(".sqlite") }.sorted()
    for file in preferenceFiles {
      let url = locations.preferencesDirectory.appendingPathComponent(file)
      suites.append(suite(String(file.dropLast(".sqlite".count)), url: url))
    }
    var documentFolders = [locations.documentsDirectory]
    if let group = app.group {
      let environment = locations.environment.variables
      if let folder = try? Locations.groupContainer(group, environment: environment) {
        paths["group"] = folder.path
        documentFolders.append(folder)
      }
      if let url = try? Preferences.fileURL(forSuite: group, environment: environment) {
        suites.append(suite(group, url: url))
      }
    }
    var scenes: [Suite] = []
    for id in (try? SceneState.sceneIdentifiers(locations: locations)) ?? [] {
      scenes.append(
        suite(id, url: locations.sceneStateDirectory.appendingPathComponent(id + ".sqlite")))
    }
    var documents: [Document] = []
    for folder in documentFolders {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      for name in names.sorted() where !name.hasPrefix(".") && name.hasSuffix(".json") {
        documents.append(document(folder.appendingPathComponent(name)))
      }
    }
    let store = locations.defaultStoreURL
    return AppAnswer(
      app: locations.appIdentifier, group: app.group, paths: paths,
      store: FileManager.default.fileExists(atPath: store.path) ? store.path : nil,
      suites: suites, scenes: scenes, documents: documents)
  }

  /// One suite's keys, types and values (read-only; a missing file is an empty suite).
  func suite(_ name: String, url: URL) -> Suite {
    guard FileManager.default.fileExists(atPath: url.path) else {
      return Suite(name: name, file: url.path, keys: [])
    }
    do {
      let preferences = try Preferences.readOnly(fileURL: url, suiteName: name)
      let values = preferences.dictionaryRepresentation()
      var entries = values.keys.sorted().map { key in
        let value = values[key] ?? .string("")
        return Suite.Entry(key: key, type: Self.typeName(value), value: Self.shown(value))
      }
      for key in preferences.unreadableKeys.sorted() where values[key] == nil {
        var why = "unreadable"
        do { _ = try preferences.storedValue(forKey: key) } catch { why = "\(error)" }
        entries.append(Suite.Entry(key: key, type: "unreadable", value: why))
      }
      return Suite(name: name, file: url.path, keys: entries)
    } catch {
      return Suite(name: name, file: url.path, keys: [], error: "\(error)")
    }
  }

  static func typeName(_ value: PreferenceValue) -> String {
    if case .data(let data) = value, jsonText(data) != nil { return "data (JSON)" }
    return value.typeName
  }

  /// A preference's value as the page shows it: text as it is, a date in ISO 8601, bytes that
  /// hold JSON as that JSON, other bytes as their size and hexadecimal, arrays and dictionaries
  /// as JSON.
  static func shown(_ value: PreferenceValue) -> String {
    switch value {
    case .string(let text): return text
    case .integer(let number): return String(number)
    case .double(let number): return String(number)
    case .bool(let flag): return String(flag)
    case .date(let date): return StudioCell.iso(date.timeIntervalSinceReferenceDate)
    case .data(let data):
      if let json = jsonText(data) { return json }
      return "\(data.count) bytes "
        + data.prefix(32).map { String(format: "%02x", $0) }.joined()
        + (data.count > 32 ? "…" : "")
    case .array, .dictionary:
      let object = jsonObject(value)
      guard
        let data = try? JSONSerialization.data(
          withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
      else { return "\(value)" }
      return String(decoding: data, as: UTF8.self)
    }
  }

  static func jsonObject(_ value: PreferenceValue) -> Any {
    switch value {
    case .array(let items): return items.map(jsonObject)
    case .dictionary(let items): return items.mapValues(jsonObject)
    case .string(let text): return text
    case .integer(let number): return number
    case .double(let number): return number
    case .bool(let flag): return flag
    default: return shown(value)
    }
  }

  /// The JSON text of bytes holding a JSON array or object, else `nil`.
  static func jsonText(_ data: Data) -> String? {
    guard let first = data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }),
      first == UInt8(ascii: "[") || first == UInt8(ascii: "{"),
      (try? JSONSerialization.jsonObject(with: data)) != nil
    else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  /// A document: its JSON with the journal's pending changes applied, and the journal's state.
  func document(_ url: URL) -> Document {
    let journalURL = url.deletingLastPathComponent().appendingPathComponent(
      ".\(url.lastPathComponent).journal")
    var document = Document(name: url.lastPathComponent, path: url.path, bytes: 0)
    guard let data = try? Data(contentsOf: url) else {
      document.error = "Can't read the file."
      return document
    }
    document.bytes = data.count
    guard data.count <= Self.shownDocumentBytes else {
      document.error = "Too large to show here (\(data.count) bytes)."
      return document
    }
    var value: Any
    do {
      value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    } catch {
      document.error = "The file is not JSON: \(error.localizedDescription)"
      return document
    }
    if let journal = try? Data(contentsOf: journalURL) {
      var state = Document.Journal(bytes: journal.count, records: 0, state: "pending")
      switch DocumentJournal.header(of: journal) {
      case .torn:
        state.state = "torn"
      case .unknownVersion(let version):
        state.state = "damaged"
        state.detail = "written by another version of Kura (\(version))"
      case .damaged(let why):
        state.state = "damaged"
        state.detail = why
      case .valid(let base):
        let scan = DocumentJournal.scan(journal.dropFirst(DocumentJournal.headerSize))
        let changes = scan.records.filter { $0.operation != .compacted }
        state.records = changes.count
        state.detail = scan.damage
        if scan.damage != nil { state.state = "damaged" }
        if base != DocumentJournal.Base(of: data) {
          let foreign = DocumentJournal.holdsUnmergedChanges(
            journal, current: DocumentJournal.Base(of: data))
          state.state = foreign ? "foreign" : "stale"
        } else if scan.records.last?.operation == .compacted {
          state.state = "compacted"
        } else if scan.damage == nil, var items = value as? [Any] {
          for record in changes {
            Self.apply(record, to: &items)
          }
          value = items
        }
      }
      document.journal = state
    }
    if let shown = try? JSONSerialization.data(
      withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed])
    {
      document.json = String(decoding: shown, as: UTF8.self)
    }
    return document
  }

  /// Applies one journal record to a collection (its elements are found by their `id`).
  static func apply(_ record: DocumentJournal.Record, to items: inout [Any]) {
    guard let element = try? JSONSerialization.jsonObject(with: record.json) else { return }
    let id = (element as? [String: Any])?["id"] as? NSObject
    let position = id.flatMap { id in
      items.firstIndex { (($0 as? [String: Any])?["id"] as? NSObject)?.isEqual(id) ?? false }
    }
    switch record.operation {
    case .append, .update:
      if let position { items[position] = element } else { items.append(element) }
    case .remove:
      if let position { items.remove(at: position) }
    case .compacted:
      break
    }
  }
}
