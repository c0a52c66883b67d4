import Foundation
import Kura

/// The app's store: `Documents/SQlite3/SwiftUICDSave2.sqlite` in the app's Documents folder (the
/// `SQlite3` folder is created when missing), as in the seed app.
enum StudentStore {
  /// The store file.
  static func url() throws -> URL {
    try Locations.current().documentsDirectory
      .appendingPathComponent("SQlite3")
      .appendingPathComponent("SwiftUICDSave2.sqlite")
  }

  /// The PostgreSQL store `KURA_STORE_URL` names, if any (used instead of the file).
  static var serverURL: URL? {
    ProcessInfo.processInfo.environment["KURA_STORE_URL"].flatMap {
      $0.isEmpty ? nil : URL(string: $0)
    }
  }

  /// The store's configuration: the server `KURA_STORE_URL` names, else the file.
  static func configuration() throws -> ModelConfiguration {
    if let serverURL { return .postgres(serverURL) }
    return .url(try url())
  }

  /// A context on the store.
  static func context() throws -> ModelContext {
    let container = try ModelContainer(for: Student.self, configurations: try configuration())
    return ModelContext(container)
  }

  /// A context for a command that only reads, or `nil` when there is no store yet: it never
  /// creates or initialises a store. A store an older version wrote is brought up to date first
  /// (in one transaction, as any write would), as the seed app does when it starts.
  static func readingContext() throws -> ModelContext? {
    if serverURL != nil {
      var configuration = try configuration()
      configuration.allowsSave = false
      do {
        return ModelContext(try ModelContainer(for: Student.self, configurations: configuration))
      } catch let error as StoreError where error.code == .outdatedStore {
        return try context()
      } catch let error as StoreError where error.code == .cannotOpen && error.postgresError == nil
      {
        return nil  // no store in the database yet
      }
    }
    let url = try url()
    guard (try? FileManager.default.attributesOfItem(atPath: url.path)) != nil else { return nil }
    do {
      return ModelContext(try ModelContainer(for: Student.self, configurations: .readOnly(url)))
    } catch let error as StoreError where error.code == .outdatedStore {
      return try context()
    }
  }

  /// Every student, oldest first.
  static func all(_ context: ModelContext) throws -> [Student] {
    try context.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.added)]))
  }
}
