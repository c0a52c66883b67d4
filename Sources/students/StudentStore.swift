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

  /// A context on the store.
  static func context() throws -> ModelContext {
    let container = try ModelContainer(for: Student.self, configurations: .url(try url()))
    return ModelContext(container)
  }

  /// A context for a command that only reads, or `nil` when there is no store yet: it never
  /// creates, initialises or migrates the store.
  static func readingContext() throws -> ModelContext? {
    let url = try url()
    guard (try? FileManager.default.attributesOfItem(atPath: url.path)) != nil else { return nil }
    let container = try ModelContainer(for: Student.self, configurations: .readOnly(url))
    return ModelContext(container)
  }

  /// Every student, oldest first.
  static func all(_ context: ModelContext) throws -> [Student] {
    try context.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.added)]))
  }
}
