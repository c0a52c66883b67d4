import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore

// The same models as Tests/KuraTests/Relations/RelationTestModels.swift (type names matter:
// the change feed names models by type name).
struct RTrip: PersistentModel {
  var id = UUID()
  var name: String
  static var schemaName: String { "Trip" }
}

struct RNote: PersistentModel {
  var id = UUID()
  var text: String
  var trip: RTrip.ID?
  static var schemaName: String { "Note" }
  static var schema: Schema<RNote> {
    Schema(.reference(\.trip, to: RTrip.self, deleteRule: .nullify))
  }
}

/// `CrashNote` with `extra` made optional (a migration that copies every row) (Tests/KuraTests/Migration/MigrationCrashTests.swift).
struct CrashNoteV2: PersistentModel {
  var id: Int
  var text: String
  var extra: String?
  static var schemaName: String { "CrashNote" }
}

/// Commands exercising relationships, the change feed and live queries from another process:
/// - `relations-insert <store> trip|note <text>`: saves a trip (or a note) and prints the token.
/// - `relations-migrate-and-hang <store>`: opens the store with `CrashNoteV2` (a migration that
///   copies rows); after the first batch prints `migrating <done>/<total>` and waits to be killed.
let relationHelperCommands: [HelperCommand] = [
  HelperCommand(name: "relations-insert") { arguments in
    guard arguments.count == 3, ["trip", "note"].contains(arguments[1]) else {
      throw HelperUsage("relations-insert <store> trip|note <text>")
    }
    let container = try ModelContainer(
      for: RTrip.self, RNote.self, configurations: storeConfiguration(arguments[0]))
    let context = ModelContext(container)
    if arguments[1] == "trip" {
      try context.insert(RTrip(name: arguments[2]))
    } else {
      try context.insert(RNote(text: arguments[2]))
    }
    print(try context.save().token)
  },
  HelperCommand(name: "relations-migrate-and-hang") { arguments in
    guard arguments.count == 1 else { throw HelperUsage("relations-migrate-and-hang <store>") }
    _ = try ModelContainer(
      for: [CrashNoteV2.self], configurations: storeConfiguration(arguments[0])
    ) { progress in
      guard progress.completedRows > 0 else { return }
      print("migrating \(progress.completedRows)/\(progress.totalRows)")
      fflush(nil)
      Thread.sleep(forTimeInterval: 120)  // inside the migration's transaction: wait for SIGKILL
    }
  },
]
