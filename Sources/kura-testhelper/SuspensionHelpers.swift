import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import WarikanKit

// The suspension tests' child: it holds a store, a preferences suite and a document in one folder
// (and a DatabasePool) and suspends when told, so the test (another process) can try to lock the files.

struct SuspendedNote: PersistentModel {
  var id = UUID()
  var text: String
}

extension Preferences.Key {
  fileprivate static var uses: Preferences.Key<Int> { .init("uses", default: 0) }
}

let suspensionHelperCommands: [HelperCommand] = [
  // suspension-cycle <folder>: prints `inflight <document> <store>` (what `suspend` returns when
  // called inside a running save), `open <counts>`, then on each line of input `suspend`, `use`,
  // `resume` prints `suspended <released>`, `used <counts>`, `resumed <counts>`.
  HelperCommand(name: "suspension-cycle") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let folder = URL(fileURLWithPath: arguments[0])
    let container = try ModelContainer(
      for: SuspendedNote.self, configurations: .url(folder.appendingPathComponent("store.sqlite")))
    let context = ModelContext(container)
    let preferences = try Preferences(fileURL: folder.appendingPathComponent("preferences.sqlite"))
    let document = try DocumentStore<[CashData]>(
      .url(folder.appendingPathComponent("cashData.json")),
      options: DocumentOptions(observesOtherProcesses: false))

    func say(_ line: String) {
      print(line)
      fflush(nil)
    }

    func use(_ label: String) throws -> String {
      try context.insert(SuspendedNote(text: label))
      try context.save()
      try preferences.update(.uses) { $0 + 1 }
      try document.append(CashData(memo: label, cash: 1, time: "9:00"))
      try pool.write { db in try db.run("INSERT INTO t (x) VALUES (1)") }
      let notes = try context.fetchCount(FetchDescriptor<SuspendedNote>())
      let rows = try pool.read { db in
        try db.queryFirst("SELECT count(*) FROM t") { $0.int64(at: 0) }
      }
      return "\(notes) \(preferences[.uses]) \(document.value.count) \(rows ?? 0)"
    }

    var insideDocument = true
    try document.update { _ in insideDocument = KuraLibrary.suspend(waitingAtMost: .zero) }
    let pool = try DatabasePool(path: folder.appendingPathComponent("pool.sqlite").path)
    try pool.write { db in try db.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)") }
    var insideStore = true
    try pool.write { _ in insideStore = KuraLibrary.suspend(waitingAtMost: .zero) }
    KuraLibrary.resume()
    say("inflight \(insideDocument) \(insideStore)")
    say("open \(try use("open"))")
    while let line = readLine() {
      switch line {
      case "suspend": say("suspended \(KuraLibrary.suspend(waitingAtMost: .seconds(30)))")
      case "use": say("used \(try use("suspended"))")
      case "resume":
        KuraLibrary.resume()
        say("resumed \(try use("resumed"))")
      default: return
      }
    }
  },
  // suspension-watch <folder>: observes the suite `preferences.sqlite`'s `uses` key, printing
  // `seen <value>` for each value it is given; on each line of input `suspend` and `resume`
  // print `suspended <released>` and `resumed`.
  HelperCommand(name: "suspension-watch") { arguments in
    guard arguments.count == 1 else { throw CocoaError(.featureUnsupported) }
    let folder = URL(fileURLWithPath: arguments[0])
    let preferences = try Preferences(fileURL: folder.appendingPathComponent("preferences.sqlite"))
    let changes = preferences.changes(of: .uses)
    let watching = Task {
      for await value in changes {
        print("seen \(value)")
        fflush(nil)
      }
    }
    defer { watching.cancel() }
    while let line = readLine() {
      switch line {
      case "suspend": print("suspended \(KuraLibrary.suspend(waitingAtMost: .seconds(30)))")
      case "resume":
        KuraLibrary.resume()
        print("resumed")
      default: return
      }
      fflush(nil)
    }
  },
]
