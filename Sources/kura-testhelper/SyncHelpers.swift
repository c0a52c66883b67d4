import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import Synchronization

/// The model the sync tests' replica processes save.
struct SyncedTrip: PersistentModel, Equatable {
  var id: Int
  var name: String
  var budget: Int
}

/// A model with a unique name, for the unique-value tests' replica processes.
struct SyncedCity: PersistentModel, Equatable {
  var id: Int
  var name: String
  static var schema: Schema<SyncedCity> { Schema(.unique(\.name)) }
}

/// `sync-replica <store> <server URL> <space> <token>`: a device with a synced store, driven by
/// lines on standard input (`<tag> <request>`), answering each with one line `<tag> <answer>`:
///
/// - `save <id> <name> <budget>` → `saved`
/// - `delete <id>` → `deleted`
/// - `sync` → `synced`, or `failed <code>`
/// - `trips` → `trips <id>:<name>:<budget>,…` (by id)
/// - `pending` → `pending <count>`
/// - `city <id> <name>` → `saved`; `cities` → `cities <id>:<name>,…` (by id)
/// - `conflicts` → `conflicts <kind>:<id>:<existing id>,…`
let syncHelperCommands: [HelperCommand] = [
  HelperCommand(name: "sync-replica") { arguments in
    guard arguments.count == 4, let server = URL(string: arguments[1]) else {
      throw HelperUsage("sync-replica <store> <server URL> <space> <token>")
    }
    var configuration = ModelConfiguration.url(URL(fileURLWithPath: arguments[0]))
    var settings = SyncSettings(server: server, space: arguments[2], token: arguments[3])
    settings.pollInterval = .seconds(3600)  // the test says when to sync
    settings.waitForChanges = nil
    configuration.sync = settings
    let container = try ModelContainer(
      for: SyncedTrip.self, SyncedCity.self, configurations: configuration)
    let sync = try SyncEngine(container: container)
    let context = ModelContext(container)
    var tag = "-"
    func answer(_ line: String) {
      FileHandle.standardOutput.write(Data((tag + " " + line + "\n").utf8))
    }
    answer("ready")
    while let request = readLine() {
      var words = request.split(separator: " ").map(String.init)
      tag = words.first ?? "-"
      words = Array(words.dropFirst())
      let line = words.joined(separator: " ")
      switch words.first {
      case "save":
        guard words.count == 4, let id = Int(words[1]), let budget = Int(words[3]) else {
          answer("bad \(line)")
          continue
        }
        try context.insert(SyncedTrip(id: id, name: words[2], budget: budget))
        try context.save()
        answer("saved")
      case "delete":
        guard words.count == 2, let id = Int(words[1]),
          let trip = try context.model(for: id, as: SyncedTrip.self)
        else {
          answer("bad \(line)")
          continue
        }
        try context.delete(trip)
        try context.save()
        answer("deleted")
      case "sync":
        let outcome = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
          do {
            try await sync.syncNow()
            outcome.withLock { $0 = "synced" }
          } catch let error as SyncError {
            outcome.withLock { $0 = "failed \(error.code.rawValue)" }
          } catch {
            outcome.withLock { $0 = "failed \(error)" }
          }
          done.signal()
        }
        done.wait()
        answer(outcome.withLock { $0 } ?? "failed")
      case "trips":
        let trips = try context.fetch(FetchDescriptor<SyncedTrip>(sortBy: [SortDescriptor(\.id)]))
        answer("trips " + trips.map { "\($0.id):\($0.name):\($0.budget)" }.joined(separator: ","))
      case "pending":
        answer("pending \(sync.status.pending)")
      case "city":
        guard words.count == 3, let id = Int(words[1]) else {
          answer("bad \(line)")
          continue
        }
        try context.insert(SyncedCity(id: id, name: words[2]))
        try context.save()
        answer("saved")
      case "cities":
        let cities = try context.fetch(
          FetchDescriptor<SyncedCity>(sortBy: [SortDescriptor(\.id)]))
        answer("cities " + cities.map { "\($0.id):\($0.name)" }.joined(separator: ","))
      case "conflicts":
        let conflicts = try sync.conflicts().map {
          "\($0.kind.rawValue):\($0.id):\($0.existingID ?? "")"
        }
        answer("conflicts " + conflicts.joined(separator: ","))
      default:
        answer("bad \(line)")
      }
    }
    sync.stop()
  }
]
