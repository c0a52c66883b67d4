import Foundation
import KuraTestSupport

/// A fresh store for the `students` app on `engine` (on SQLite, the app's own file in the
/// folder's `KURA_HOME`, which the app creates).
package func studentsStore(_ engine: TestEngine, _ testName: String = #function) throws
  -> TestStore
{
  try freshStore(
    engine, sqlite: .file("kura-home/apps/students/Documents/SQlite3/SwiftUICDSave2.sqlite"),
    testName)
}

/// A fresh store for the `wishlist` app on `engine` (on SQLite, the app's default store in the
/// folder's `KURA_HOME`, which the app creates).
package func wishlistStore(_ engine: TestEngine, _ testName: String = #function) throws -> TestStore
{
  try freshStore(engine, sqlite: .file("kura-home/apps/wishlist/Data/default.store"), testName)
}
