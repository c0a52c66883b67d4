import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Synchronization
import Testing

@testable import Kura

private enum Sparse {
  struct V1: PersistentModel, Equatable {
    var id: Int
    var name: String
    static var schemaName: String { "Sparse" }
  }
  /// `name` made optional: a change that copies every row.
  struct V2: PersistentModel, Equatable {
    var id: Int
    var name: String?
    static var schemaName: String { "Sparse" }
  }
}

private enum Measure {
  struct V1: PersistentModel, Equatable {
    var id: Int
    var amount: Int
    static var schemaName: String { "Measure" }
  }
  struct V2: PersistentModel, Equatable {
    var id: Int
    var amount: Double
    static var schemaName: String { "Measure" }
  }
  struct V3: PersistentModel, Equatable {
    var id: Int
    var amount: Int
    var score: Double
    var lowest: Double
    var label: String
    static var schema: Schema<V3> {
      Schema(
        .defaultValue(\.score, Double.infinity), .defaultValue(\.lowest, -Double.infinity),
        .defaultValue(\.label, "it's \"quoted\"; DROP TABLE Measure; --"))
    }
    static var schemaName: String { "Measure" }
  }
}

@Suite("Migration safety")
struct MigrationSafetyTests {
  /// The limit catches a copy that walks the id range (from `Int.min + 1` to `Int.max` it
  /// would never end); it is 3 minutes, not 1, since a fresh-clone CI run once had every test
  /// stand still for 68 seconds, and this one failed on time alone.
  @Test(.timeLimit(.minutes(3)), arguments: TestEngine.enabled)
  func idsNearIntMaxAndSparseIdsAreCopiedByKey(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("sparse.store"))
    let ids = [Int.min + 1, -5, 1, 50_000_000_000, 5_000_000_000_000_000, Int.max - 1, Int.max]
    do {
      let context = ModelContext(
        try ModelContainer(for: Sparse.V1.self, configurations: store.configuration))
      for id in ids { try context.insert(Sparse.V1(id: id, name: "row \(id)")) }
      try context.save()
    }
    let context = ModelContext(
      try ModelContainer(for: Sparse.V2.self, configurations: store.configuration))
    let rows = try context.fetch(FetchDescriptor<Sparse.V2>(sortBy: [SortDescriptor(\.id)]))
    #expect(rows.map(\.id) == ids)
    #expect(rows.map(\.name) == ids.map { "row \($0)" })
  }

  /// A table of more rows than one batch copies is copied whole and in order, batch by batch,
  /// the progress told after each batch (the rows are written by SQL: saving them one by one
  /// would take most of the test's time).
  @Test(.timeLimit(.minutes(2)), arguments: TestEngine.enabled)
  func aTableOfSeveralBatchesIsCopiedWholeBatchByBatch(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("large.store"))
    _ = try ModelContainer(for: Sparse.V1.self, configurations: store.configuration)
    let count = 2 * BatchedCopy.batchSize + 1
    switch engine {
    case .sqlite:
      try Connection(path: store.argument).execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count)) "
          + "INSERT INTO \"Sparse\" (id, name) SELECT \(count) + 1 - i, 'row ' || i FROM n")
    case .postgres:
      #if canImport(CLibPQ)
        try PostgresConnection(store.argument).execute(
          "INSERT INTO \"Sparse\" (id, name) SELECT \(count) + 1 - i, 'row ' || i "
            + "FROM generate_series(1, \(count)) AS i")
      #endif
    }
    let reports = Mutex<[Int]>([])
    let context = ModelContext(
      try ModelContainer(for: [Sparse.V2.self], configurations: store.configuration) { progress in
        reports.withLock { $0.append(progress.completedRows) }
      })
    #expect(
      reports.withLock { $0 } == [
        0, BatchedCopy.batchSize, 2 * BatchedCopy.batchSize, 2 * BatchedCopy.batchSize + 1,
      ])
    let rows = try context.fetch(FetchDescriptor<Sparse.V2>(sortBy: [SortDescriptor(\.id)]))
    // Counted rather than compared whole: a failure would print every row.
    #expect(rows.count == count)
    let misplaced = zip(rows, 1...count).filter { row, id in
      row.id != id || row.name != "row \(count + 1 - id)"
    }
    #expect(misplaced.count == 0)
  }

  @Test(arguments: TestEngine.enabled)
  func widenToDoubleIsRefusedForAnIntegerWithoutAnExactDouble(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("measure.store"))
    do {
      let context = ModelContext(
        try ModelContainer(for: Measure.V1.self, configurations: store.configuration))
      try context.insert(Measure.V1(id: 1, amount: 9_007_199_254_740_992))
      try context.insert(Measure.V1(id: 2, amount: 9_007_199_254_740_993))
      try context.save()
    }
    let before = try store.contents()
    #expect {
      _ = try ModelContainer(for: Measure.V2.self, configurations: store.configuration)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .migrationRefused && error.property == "amount"
        && error.message.contains("the stored value 9007199254740993 has no exact `Double`")
    }
    #expect(try store.contents() == before)
    // Once that value is gone, widening is exact and allowed.
    do {
      let context = ModelContext(
        try ModelContainer(for: Measure.V1.self, configurations: store.configuration))
      try context.delete(Measure.V1(id: 2, amount: 0))
      try context.save()
    }
    let context = ModelContext(
      try ModelContainer(for: Measure.V2.self, configurations: store.configuration))
    #expect(
      try context.fetch(FetchDescriptor<Measure.V2>()).map(\.amount) == [9_007_199_254_740_992])
  }

  @Test(arguments: TestEngine.enabled)
  func defaultsWithInfinityAndQuotesAreWrittenAsValidSQL(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("measure.store"))
    do {
      let context = ModelContext(
        try ModelContainer(for: Measure.V1.self, configurations: store.configuration))
      try context.insert(Measure.V1(id: 1, amount: 3))
      try context.save()
    }
    let context = ModelContext(
      try ModelContainer(for: Measure.V3.self, configurations: store.configuration))
    let rows = try context.fetch(FetchDescriptor<Measure.V3>())
    #expect(
      rows == [
        Measure.V3(
          id: 1, amount: 3, score: .infinity, lowest: -.infinity,
          label: "it's \"quoted\"; DROP TABLE Measure; --")
      ])
  }

  @Test func aRefusedWideningLeavesTheSQLiteFileByteIdentical() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("measure.store")
    do {
      let context = ModelContext(
        try ModelContainer(for: Measure.V1.self, configurations: .url(url)))
      try context.insert(Measure.V1(id: 2, amount: 9_007_199_254_740_993))
      try context.save()
    }
    let before = try Data(contentsOf: url)
    expectStoreError(.migrationRefused) {
      _ = try ModelContainer(for: Measure.V2.self, configurations: .url(url))
    }
    #expect(try Data(contentsOf: url) == before)
  }
}
