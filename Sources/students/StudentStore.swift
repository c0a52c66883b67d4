import Foundation
import Kura
import KuraCLI
import KuraStoreCLI

/// The app's store: `Documents/SQlite3/SwiftUICDSave2.sqlite` in the app's Documents folder (the
/// `SQlite3` folder is created when missing), as in the seed app, unless `--store` or
/// `KURA_STORE_URL` names another file or a PostgreSQL database.
enum StudentStore {
  /// The seed app's store file.
  static func url() throws -> URL {
    try Locations.current().documentsDirectory
      .appendingPathComponent("SQlite3")
      .appendingPathComponent("SwiftUICDSave2.sqlite")
  }

  /// The `--store` option of every command that opens the store.
  static let option = StoreLocation.option(default: "Documents/SQlite3/SwiftUICDSave2.sqlite")

  /// The store a command uses: `--store`, else `KURA_STORE_URL`, else the seed app's file.
  static func location(_ invocation: Invocation) throws -> StoreLocation {
    try StoreLocation.resolve(invocation, default: try url())
  }

  /// A context on the store.
  static func context(_ invocation: Invocation) throws -> ModelContext {
    try context(location(invocation))
  }

  private static func context(_ store: StoreLocation) throws -> ModelContext {
    ModelContext(try ModelContainer(for: Student.self, configurations: try store.configuration))
  }

  /// A context for a command that only reads, or `nil` when there is no store yet: it never
  /// creates or initialises a store. A store an older version wrote is brought up to date first
  /// (in one transaction, as any write would), as the seed app does when it starts.
  static func readingContext(_ invocation: Invocation) throws -> ModelContext? {
    let store = try location(invocation)
    guard let configuration = try store.readingConfiguration() else { return nil }
    do {
      return ModelContext(try ModelContainer(for: Student.self, configurations: configuration))
    } catch let error as StoreError where error.code == .outdatedStore {
      return try context(store)
    }
  }

  /// Every student, oldest first.
  static func all(_ context: ModelContext) throws -> [Student] {
    try context.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.added)]))
  }
}
