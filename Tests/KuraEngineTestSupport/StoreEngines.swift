import Foundation
import KuraPostgreSQL
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import Kura

// Every model-store test about behaviour runs once per engine in `TestEngine.enabled`:
//
//   @Test(arguments: TestEngine.enabled)
//   func cascadeDeletesActivities(_ engine: TestEngine) throws {
//     let store = try freshStore(engine)
//     let context = ModelContext(try ModelContainer(for: Trip.self, configurations: store.configuration))
//     …
//   }
//
// A test gets a fresh, isolated store from `freshStore(_:)`: a file in a temporary folder on
// SQLite (or memory, when asked), a new database of the test cluster on PostgreSQL. Opening a
// second container on the same store (reopening, migrating, another context) is opening
// `store.configuration` again; a child process gets the store as `store.argument` (the
// `<store>` of `kura-testhelper` and `kura store`) and `store.environment` (the example apps).
// What a test reads back goes through the public API or `store.inspector()`, never through
// SQLite: tests about SQLite files stay SQLite-only.

/// A storage engine the model-store tests run on.
package enum TestEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case sqlite
  case postgres

  /// The engines every parameterized model-store test runs on: the one switch.
  package static let enabled: [TestEngine] = [.sqlite, .postgres]

  package var testDescription: String { rawValue }
}

/// Where an SQLite test store lives (ignored by the other engines, which have no files).
package enum SQLiteLocation: Sendable {
  /// A file at this path inside the store's temporary folder (error messages name its last
  /// component, so a test can expect `trips.store`).
  case file(String)
  /// An in-memory store: gone with its container, so it can't be reopened or shared.
  case memory
}

/// Why a test store could not be made.
package struct TestStoreUnavailable: Error, CustomStringConvertible {
  package var description: String

  /// A value of each stored property.
  package init(description: String) {
    self.description = description
  }
}

/// A fresh, isolated model store for one test on one engine; released (its folder removed, its
/// database dropped) when the value goes away.
package final class TestStore: Sendable {
  /// The engine holding the store.
  package let engine: TestEngine
  /// A temporary folder of the test's own: the store's file on SQLite, and `HOME`/`KURA_HOME` of
  /// child processes on every engine.
  package let folder: TemporaryDirectory
  /// How a container opens this store: open it again for a second container on the same store.
  package let configuration: ModelConfiguration
  /// How a child process names the store (`kura-testhelper <command> <store>`, `kura store …
  /// <store>`): the file's path on SQLite, the database URL on PostgreSQL.
  package let argument: String
  /// How `StoreError` messages name the store, as in "Can't migrate store `trips.store`".
  package let name: String
  /// The environment of an example app (`students`, `wishlist`) using this store: the folder's
  /// (HOME, KURA_HOME), plus `KURA_STORE_URL` on PostgreSQL.
  package let environment: [String: String]
  private let makeInspector: @Sendable () throws -> StoreInspector
  private let cleanup: @Sendable () -> Void

  package init(engine: TestEngine, folder: TemporaryDirectory, backing: StoreBacking) {
    self.engine = engine
    self.folder = folder
    configuration = backing.configuration
    argument = backing.argument
    name = backing.name
    environment = folder.environment.merging(backing.environment) { _, new in new }
    makeInspector = backing.inspector
    cleanup = backing.cleanup
  }

  deinit { cleanup() }

  /// This store's configuration with ``ModelConfiguration/allowsSave`` off (reads only).
  package var readOnlyConfiguration: ModelConfiguration {
    var configuration = configuration
    configuration.allowsSave = false
    return configuration
  }

  /// An inspector reading the store without its model types (as `kura store` does).
  package func inspector() throws -> StoreInspector { try makeInspector() }

  /// The schema version the store records (`nil` when none).
  package func schemaVersion() throws -> Int? { try inspector().info().schemaVersion }

  /// Everything the store holds that a test can compare before and after an operation that must
  /// change nothing: its schema version, tables (columns, indexes) and every model's rows.
  package func contents() throws -> StoreContents {
    let inspector = try inspector()
    let info = try inspector.info()
    var rows: [String: [[StoreInspector.Value]]] = [:]
    for model in info.models { rows[model.name] = try inspector.dump(model: model.name).rows }
    return StoreContents(
      schemaVersion: info.schemaVersion, models: info.models, tables: try inspector.schema(),
      rows: rows)
  }
}

/// What a store holds, as the inspector reads it (see ``TestStore/contents()``).
package struct StoreContents: Equatable, Sendable {
  package var schemaVersion: Int?
  package var models: [StoreInspector.Info.Model]
  package var tables: [StoreInspector.TableSchema]
  package var rows: [String: [[StoreInspector.Value]]]
}

/// The engine-specific parts of a ``TestStore``.
package struct StoreBacking: Sendable {
  package var configuration: ModelConfiguration
  package var argument: String
  package var name: String
  /// Variables added to the folder's environment for example apps.
  package var environment: [String: String] = [:]
  package var inspector: @Sendable () throws -> StoreInspector
  package var cleanup: @Sendable () -> Void = {}
}

/// A fresh, empty, isolated store on `engine` for one test.
///
/// - Parameters:
///   - engine: The engine (a test's argument from ``TestEngine/enabled``).
///   - location: Where the store lives on SQLite: a file in the test's folder (by default
///     `store.sqlite`) or memory. Other engines ignore it.
package func freshStore(
  _ engine: TestEngine, sqlite location: SQLiteLocation = .file("store.sqlite"),
  _ testName: String = #function
) throws -> TestStore {
  let folder = TemporaryDirectory(testName)
  switch engine {
  case .sqlite:
    return TestStore(engine: engine, folder: folder, backing: sqliteBacking(location, in: folder))
  case .postgres:
    return TestStore(
      engine: engine, folder: folder, backing: try postgresBacking(in: folder, testName: testName))
  }
}

/// An SQLite store: a file in `folder` (missing folders on its path are created on open).
private func sqliteBacking(_ location: SQLiteLocation, in folder: TemporaryDirectory)
  -> StoreBacking
{
  switch location {
  case .file(let path):
    let url = folder.file(path)
    return StoreBacking(
      configuration: .url(url), argument: url.path, name: url.lastPathComponent,
      inspector: { try StoreInspector(url: url) })
  case .memory:
    return StoreBacking(
      configuration: .inMemory, argument: ":memory:", name: "in memory",
      inspector: {
        throw TestStoreUnavailable(description: "an in-memory store can't be inspected")
      })
  }
}

// MARK: - PostgreSQL

/// A PostgreSQL store: a new, empty database, named after the test, of the test run's cluster
/// (`Sources/KuraPostgresCluster`), dropped when the test store is released.
private func postgresBacking(in folder: TemporaryDirectory, testName: String) throws
  -> StoreBacking
{
  #if canImport(CLibPQ)
    let cluster = try PostgresCluster.shared()
    let text = try cluster.freshDatabaseURL(testName)
    guard let url = URL(string: text) else {
      throw TestStoreUnavailable(description: "The cluster's URL `\(text)` is not a URL.")
    }
    let location = try PostgresLocation(url: url)
    let database = location.database ?? ""
    return StoreBacking(
      configuration: .postgres(url), argument: text, name: location.storeName,
      environment: ["KURA_STORE_URL": text],
      inspector: { try StoreInspector(configuration: .postgres(url)) },
      cleanup: { try? cluster.runAsSuperuser("DROP DATABASE IF EXISTS \(database) WITH (FORCE)") })
  #else
    throw TestStoreUnavailable(description: "PostgreSQL needs libpq, which this platform lacks.")
  #endif
}

/// Runs the test helper with a store's child-process environment (`store.argument` names the
/// store among `arguments`); returns its output.
@discardableResult
package func runHelper(_ arguments: [String], store: TestStore) throws -> String {
  let result = try run(
    try executable("kura-testhelper"), arguments, environment: store.environment)
  try #require(result.status == 0, "kura-testhelper failed: \(result.stderr)")
  return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}
