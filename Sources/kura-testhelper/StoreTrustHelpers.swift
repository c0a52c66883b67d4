import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore

/// `Memo` as version 2 of an app stores it: version 1 had no `body`
/// (Tests/KuraTests/Store/AppVersionTests.swift).
struct MemoV2: PersistentModel {
  var id: Int
  var text: String
  var body: String?
  static var schemaName: String { "Memo" }
}

/// Commands of an app at a newer version sharing a store with the tests' older version:
/// - `trust-v2-save <store> <id> <body>`: saves memo `id` with `body` (version 2 of the model).
/// - `trust-v2-read <store> <id>`: prints memo `id`'s body, or `none`.
let storeTrustHelperCommands: [HelperCommand] = [
  HelperCommand(name: "trust-v2-save") { arguments in
    guard arguments.count == 3, let id = Int(arguments[1]) else {
      throw HelperUsage("trust-v2-save <store> <id> <body>")
    }
    let context = ModelContext(
      try ModelContainer(
        for: MemoV2.self, configurations: storeConfiguration(arguments[0])))
    try context.insert(MemoV2(id: id, text: "memo \(id)", body: arguments[2]))
    try context.save()
    print("saved")
  },
  HelperCommand(name: "trust-v2-read") { arguments in
    guard arguments.count == 2, let id = Int(arguments[1]) else {
      throw HelperUsage("trust-v2-read <store> <id>")
    }
    let context = ModelContext(
      try ModelContainer(
        for: MemoV2.self, configurations: storeConfiguration(arguments[0])))
    print(try context.model(for: id, as: MemoV2.self)?.body ?? "none")
  },
]
