#if canImport(CLibPQ)
  import Foundation
  import Testing

  @testable import Kura

  import KuraPostgreSQL

  import KuraTestSupport

  import KuraEngineTestSupport

  import KuraCLI

  import KuraStoreCLI

  /// A model with a property of every stored kind, for the bulk path's encoding.
  private struct BulkRow: PersistentModel {
    var id: Int
    var name: String
    var score: Double
    var flag: Bool
    var when: Date
    var photo: Data
    var reference: UUID
    var link: URL
    var tags: [String]
    var note: String?
  }

  /// A model with a unique attribute.
  private struct BulkMember: PersistentModel, Equatable {
    static var schema: Schema<BulkMember> { Schema(.unique(\.email)) }
    var id: String
    var email: String
    var visits: Int
  }

  /// A model with only an id.
  private struct BulkTag: PersistentModel, Equatable {
    var id: String
  }

  /// The doubles the copy must carry bit for bit.
  private let awkwardDoubles: [Double] = [
    .nan, -0.0, 0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
    -1.5, 0.1, 1e300,
  ]

  private func row(_ number: Int) -> BulkRow {
    BulkRow(
      id: number, name: "行 \(number) 'quoted' \\ \u{E9}", score: awkwardDoubles[number % 10],
      flag: number % 3 == 0, when: Date(timeIntervalSinceReferenceDate: Double(number) + 0.25),
      photo: Data((0..<(number % 7)).map { UInt8(($0 * 37 + number) % 256) }),
      reference: UUID(
        uuid: (
          UInt8(number % 256), UInt8(number / 256), 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1
        )),
      link: URL(filePath: "/trips/\(number) é.txt"), tags: ["a\(number)", "b"],
      note: number % 2 == 0 ? nil : "note \(number)")
  }

  /// The staging tables of the bulk path in the store's database (temporary tables of any
  /// session there): how a test tells that a save took the bulk path.
  private func stagingTables(_ store: TestStore) throws -> Int64 {
    let connection = try PostgresConnection(store.argument)
    return try connection.queryFirst(
      "SELECT count(*) FROM pg_catalog.pg_class WHERE relname LIKE 'kura\\_bulk\\_%' "
        + "AND relpersistence = 't' AND relkind = 'r'"
    ) { $0.int64(at: 0) } ?? -1
  }

  extension PostgreSQLTests {
    /// Saves of many rows of one model, through `COPY` into a staging table and one
    /// `INSERT … ON CONFLICT` (``PostgresBulkUpsert``).
    @Suite("PostgreSQL bulk saves")
    struct PostgresBulkTests {
      @Test func aLargeSaveCopiesItsRowsAndReadsThemBackBitForBit() throws {
        let store = try freshStore(.postgres)
        let container = try ModelContainer(for: BulkRow.self, configurations: store.configuration)
        let context = ModelContext(container)
        let count = PostgresBulkUpsert.minimumStagedRows * 3
        // Inserted out of id order (the change set lists them in that order).
        let numbers = (0..<count).map { ($0 * 7) % count }
        for number in numbers { try context.insert(row(number)) }
        let saved = try context.save()
        // All new: copied straight into the table, no staging table made.
        #expect(try stagingTables(store) == 0)
        #expect(saved.changes["BulkRow"]?.inserted == numbers.map(String.init))
        #expect(saved.changes["BulkRow"]?.updated == [])
        let read = try ModelContext(container).fetch(FetchDescriptor<BulkRow>())
        #expect(read.map(\.id) == numbers.sorted())
        for stored in read {
          let expected = row(stored.id)
          #expect(stored.score.bitPattern == expected.score.bitPattern, "score of \(stored.id)")
          #expect(stored.name == expected.name)
          #expect(stored.flag == expected.flag)
          #expect(stored.when == expected.when)
          #expect(stored.photo == expected.photo)
          #expect(stored.reference == expected.reference)
          #expect(stored.link == expected.link)
          #expect(stored.tags == expected.tags)
          #expect(stored.note == expected.note)
        }
        #expect(try container.history(since: .start).count == 1)
      }

      /// A bulk upsert over stored rows: the ids stored before are updated, the others
      /// inserted, an id upserted twice in the save is written once with its last value — also
      /// when the rows were inserted earlier in the same transaction.
      @Test func aLargeUpsertTellsInsertedFromUpdated() throws {
        let store = try freshStore(.postgres)
        let container = try ModelContainer(for: BulkRow.self, configurations: store.configuration)
        let first = ModelContext(container)
        for number in 0..<100 { try first.insert(row(number)) }
        try first.save()
        let second = ModelContext(container)
        for number in 50..<200 { try second.insert(row(number)) }
        var renamed = row(60)
        renamed.name = "last"
        try second.insert(renamed)
        let saved = try second.save()
        let changes = try #require(saved.changes["BulkRow"])
        // Stored ids: the direct copy was undone, the rows went through the staging table.
        #expect(try stagingTables(store) == 1)
        #expect(changes.updated == (50..<100).filter { $0 != 60 }.map(String.init) + ["60"])
        #expect(changes.inserted == (100..<200).map(String.init))
        let read = try ModelContext(container).fetch(FetchDescriptor<BulkRow>())
        #expect(read.map(\.id) == Array(0..<200))
        #expect(read.first { $0.id == 60 }?.name == "last")
        // In one transaction: rows the same transaction inserted count as stored.
        let inWrite = try container.write { context -> (ChangeSet, ChangeSet) in
          for number in 200..<300 { try context.insert(row(number)) }
          let inserted = try context.save()
          for number in 250..<350 { try context.insert(row(number)) }
          return (inserted, try context.save())
        }
        #expect(inWrite.0.changes["BulkRow"]?.inserted == (200..<300).map(String.init))
        #expect(inWrite.1.changes["BulkRow"]?.updated == (250..<300).map(String.init))
        #expect(inWrite.1.changes["BulkRow"]?.inserted == (300..<350).map(String.init))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BulkRow>()) == 350)
      }

      /// Rows whose unique value matches a stored row with another id update that row, which
      /// keeps its id — as one upsert per row does (the bulk path hands such a save to it).
      /// Without such a match the bulk path runs, and the unique index still holds.
      @Test func uniqueValuesStayRightInALargeSave() throws {
        func run(_ engine: TestEngine) throws -> (ChangeSet.ModelChanges?, [BulkMember]) {
          let store = try freshStore(engine)
          let container = try ModelContainer(
            for: BulkMember.self, configurations: store.configuration)
          let context = ModelContext(container)
          for number in 0..<100 {
            try context.insert(BulkMember(id: "m\(number)", email: "\(number)@x", visits: 0))
          }
          try context.save()
          // New ids, half of them with stored emails.
          for number in 50..<150 {
            try context.insert(BulkMember(id: "n\(number)", email: "\(number)@x", visits: 1))
          }
          let changes = try context.save().changes["BulkMember"]
          let rows = try ModelContext(container).fetch(
            FetchDescriptor<BulkMember>(sortBy: [SortDescriptor(\.id)]))
          return (changes, rows)
        }
        let postgres = try run(.postgres)
        let sqlite = try run(.sqlite)
        #expect(postgres.0 == sqlite.0)
        #expect(postgres.1 == sqlite.1)
        #expect(postgres.1.count == 150)
        #expect(
          postgres.1.first { $0.email == "60@x" }
            == BulkMember(
              id: "m60", email: "60@x", visits: 1))
        // Two rows of the save with one email: the second updates the first's row, as row by
        // row.
        let store = try freshStore(.postgres)
        let container = try ModelContainer(
          for: BulkMember.self, configurations: store.configuration)
        let context = ModelContext(container)
        for number in 0..<100 {
          try context.insert(BulkMember(id: "m\(number)", email: "\(number)@x", visits: 0))
        }
        try context.insert(BulkMember(id: "dup", email: "5@x", visits: 9))
        let saved = try context.save().changes["BulkMember"]
        #expect(saved?.inserted == (0..<100).map { "m\($0)" })
        #expect(saved?.updated == ["m5"])
        let five = try ModelContext(container).fetch(
          FetchDescriptor<BulkMember>(predicate: #Predicate { $0.email == "5@x" }))
        #expect(five == [BulkMember(id: "m5", email: "5@x", visits: 9)])
      }

      /// Ids that rise for a while, then repeat and fall (the bulk path tells rows apart without
      /// a table while the ids rise, and with one from the first that doesn't): each id's last
      /// upsert is stored, and the change set lists ids in the order of their last change — as
      /// SQLite's row-by-row save gives.
      @Test func aLargeSaveWhoseIdsRepeatAndFallKeepsEachIdsLastUpsert() throws {
        func run(_ engine: TestEngine) throws -> (ChangeSet.ModelChanges?, [BulkRow], Int64) {
          let store = try freshStore(engine)
          let container = try ModelContainer(
            for: BulkRow.self, configurations: store.configuration)
          let context = ModelContext(container)
          var ids = Array(10..<110)
          ids += [50, 200, 5, 50, 109, 3, 200, Int.min, Int.max, 0]
          for (position, id) in ids.enumerated() {
            var model = row(abs(id % 1000))
            model.id = id
            model.name = "upsert \(position)"
            try context.insert(model)
          }
          let changes = try context.save().changes["BulkRow"]
          let rows = try ModelContext(container).fetch(FetchDescriptor<BulkRow>())
          return (changes, rows, engine == .postgres ? try stagingTables(store) : 0)
        }
        let postgres = try run(.postgres)
        let sqlite = try run(.sqlite)
        // Every id new: copied straight into the table.
        #expect(postgres.2 == 0)
        #expect(postgres.0 == sqlite.0)
        #expect(postgres.0?.updated == [])
        let expectedOrder =
          (10..<110).filter { $0 != 50 && $0 != 109 }.map(String.init)
          + ["5", "50", "109", "3", "200", String(Int.min), String(Int.max), "0"]
        #expect(postgres.0?.inserted == expectedOrder)
        #expect(postgres.1.map(\.id) == sqlite.1.map(\.id))
        #expect(
          postgres.1.map(\.id).sorted() == ([Int.min, 0, 3, 5] + Array(10..<110) + [200, Int.max]))
        #expect(postgres.1.first { $0.id == 50 }?.name == "upsert 103")
        #expect(postgres.1.first { $0.id == 200 }?.name == "upsert 106")
        #expect(postgres.1.map(\.name) == sqlite.1.map(\.name))
      }

      /// A model with only an id: stored ids are left as they are (reported updated).
      @Test func aLargeSaveOfIdOnlyModelsInsertsTheNewOnes() throws {
        let store = try freshStore(.postgres)
        let container = try ModelContainer(for: BulkTag.self, configurations: store.configuration)
        let context = ModelContext(container)
        // Saved out of order: a fetch without a sort gives the order they were saved in.
        let first = (0..<100).reversed().map { "t\($0)" }
        for id in first { try context.insert(BulkTag(id: id)) }
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<BulkTag>()).map(\.id) == first)
        for number in 80..<180 { try context.insert(BulkTag(id: "t\(number)")) }
        let changes = try context.save().changes["BulkTag"]
        #expect(changes?.updated == (80..<100).map { "t\($0)" })
        #expect(changes?.inserted == (100..<180).map { "t\($0)" })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BulkTag>()) == 180)
      }

      /// A value the server refuses inside the copy (text with a NUL character) is the save's
      /// error: nothing is written, and the next save works.
      @Test func aValueRefusedInsideTheCopyFailsTheSaveAndWritesNothing() throws {
        let store = try freshStore(.postgres)
        let container = try ModelContainer(for: BulkRow.self, configurations: store.configuration)
        let context = ModelContext(container)
        for number in 0..<100 {
          var model = row(number)
          if number == 70 { model.name = "nul \u{0} inside" }
          try context.insert(model)
        }
        do {
          try context.save()
          Issue.record("text with a NUL character was saved")
        } catch let error as StoreError {
          #expect(error.code == .engine)
          #expect((error.underlying as? PostgresError)?.sql?.contains("COPY \"BulkRow\"") == true)
          #expect(error.message.contains("0x00"))
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BulkRow>()) == 0)
        #expect(try container.history(since: .start).isEmpty)
        let again = ModelContext(container)
        for number in 0..<100 { try again.insert(row(number)) }
        #expect(try again.save().changes["BulkRow"]?.inserted.count == 100)
      }

      /// A save of fewer rows than the copy takes (or whose copy met stored rows, below the
      /// staging table's threshold) sends its row-by-row upserts in one round trip: a save of 12
      /// rows, new or stored, takes as many round trips as one of 2.
      @Test func aSaveOfAFewRowsSendsItsUpsertsInOneRoundTrip() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let url = try #require(URL(string: try proxy.url(replacingHostOf: store.argument)))
        let container = try ModelContainer(for: BulkRow.self, configurations: .postgres(url))
        let context = ModelContext(container)
        // Twice: the first save's history row also reads the oldest row for the trim, the next
        // ones don't (both statements prepared).
        for _ in 0..<2 {
          try context.insert(row(0))
          try context.save()
        }
        func roundTrips(_ numbers: Range<Int>, name: String) throws -> Int {
          for number in numbers {
            var model = row(number)
            model.name = name
            try context.insert(model)
          }
          let before = proxy.exchanges
          try context.save()
          return proxy.exchanges - before
        }
        let two = try roundTrips(1..<3, name: "two")
        let twelveNew = try roundTrips(10..<22, name: "new")
        let twelveStored = try roundTrips(10..<22, name: "stored")
        #expect(twelveNew == two)
        #expect(twelveStored == two)
        // Forty stored rows: the copy meets them and is undone, then one pipeline.
        _ = try roundTrips(100..<140, name: "new")
        let fortyStored = try roundTrips(100..<140, name: "stored")
        #expect(fortyStored <= two + 2)
        // The next save of that model skips the copy: one pipeline, as a save of 2 rows.
        let fortyAgain = try roundTrips(100..<140, name: "stored")
        #expect(fortyAgain == two)
        // New rows again: pipelined once (all inserted), then copied.
        _ = try roundTrips(200..<240, name: "new")
        _ = try roundTrips(300..<340, name: "new")
        #expect(try stagingTables(store) == 0)
        let stored = try ModelContext(container).fetch(
          FetchDescriptor<BulkRow>(predicate: #Predicate { $0.name == "stored" }))
        #expect(stored.map(\.id) == Array(10..<22) + Array(100..<140))
      }

      /// Saves below the copy's threshold and saves whose copy met stored rows (pipelined
      /// upserts) report and store what SQLite's row-by-row save does: inserted and updated
      /// ids in the order of their last change, an id saved twice written once with its last
      /// value, a new id whose unique value matches a stored row updating that row (reported
      /// under the stored id), and a model with only an id left as it is.
      @Test func aPipelinedSaveReportsAndStoresWhatRowByRowDoes() throws {
        struct Outcome: Equatable {
          var rows: [ChangeSet.ModelChanges?] = []
          var members: [BulkMember] = []
          var tags: [ChangeSet.ModelChanges?] = []
          var names: [String] = []
        }
        func run(_ engine: TestEngine) throws -> Outcome {
          let store = try freshStore(engine)
          let container = try ModelContainer(
            for: BulkRow.self, BulkMember.self, BulkTag.self, configurations: store.configuration)
          let context = ModelContext(container)
          var outcome = Outcome()
          for (size, base) in [(5, 0), (40, 1000)] {
            for number in base..<base + size { try context.insert(row(number)) }
            try context.save()
            // Half stored, half new, one id twice, ids falling.
            let numbers = (base + size / 2..<base + size + size / 2).reversed()
            for (position, number) in numbers.enumerated() {
              var model = row(number)
              model.name = "size \(size) position \(position)"
              try context.insert(model)
            }
            var again = row(base + size)
            again.name = "size \(size) last"
            try context.insert(again)
            outcome.rows.append(try context.save().changes["BulkRow"])
          }
          for number in 0..<10 {
            try context.insert(BulkMember(id: "m\(number)", email: "\(number)@x", visits: 0))
          }
          try context.save()
          for number in 5..<12 {
            try context.insert(BulkMember(id: "n\(number)", email: "\(number)@x", visits: 1))
          }
          try context.insert(BulkMember(id: "m1", email: "1@x", visits: 2))
          outcome.rows.append(try context.save().changes["BulkMember"])
          outcome.members = try ModelContext(container).fetch(
            FetchDescriptor<BulkMember>(sortBy: [SortDescriptor(\.id)]))
          for id in ["a", "b", "c"] { try context.insert(BulkTag(id: id)) }
          try context.save()
          for id in ["c", "d", "a", "e"] { try context.insert(BulkTag(id: id)) }
          outcome.tags.append(try context.save().changes["BulkTag"])
          outcome.names = try ModelContext(container).fetch(
            FetchDescriptor<BulkRow>(sortBy: [SortDescriptor(\.id)])
          ).map(\.name)
          return outcome
        }
        let postgres = try run(.postgres)
        let sqlite = try run(.sqlite)
        #expect(postgres == sqlite)
        #expect(postgres.rows.first??.inserted == ["6", "5"])
        #expect(postgres.rows.first??.updated == ["4", "3", "2"])
        #expect(postgres.members.first { $0.email == "6@x" }?.id == "m6")
        #expect(postgres.tags.first??.inserted == ["d", "e"])
      }

      /// A value the server refuses in the middle of a pipelined save (text with a NUL
      /// character in the third of eight rows) is the save's error: nothing is written, and
      /// the container saves again afterwards.
      @Test func aValueRefusedInsideAPipelineFailsTheSaveAndWritesNothing() throws {
        let store = try freshStore(.postgres)
        let container = try ModelContainer(for: BulkRow.self, configurations: store.configuration)
        let context = ModelContext(container)
        for number in 0..<8 {
          var model = row(number)
          if number == 2 { model.name = "nul \u{0} inside" }
          try context.insert(model)
        }
        do {
          try context.save()
          Issue.record("text with a NUL character was saved")
        } catch let error as StoreError {
          #expect(error.code == .engine)
          #expect(error.message.contains("0x00"))
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BulkRow>()) == 0)
        #expect(try container.history(since: .start).isEmpty)
        let again = ModelContext(container)
        for number in 0..<8 { try again.insert(row(number)) }
        #expect(try again.save().changes["BulkRow"]?.inserted == (0..<8).map(String.init))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BulkRow>()) == 8)
      }

      /// The connection breaks after a pipelined save's upserts were sent, before their
      /// answers: the save fails as lost (nothing was committed), writes nothing, and the
      /// container saves again afterwards.
      @Test func aConnectionLostDuringAPipelineIsConnectionLost() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let url = try #require(URL(string: try proxy.url(replacingHostOf: store.argument)))
        let container = try ModelContainer(for: BulkRow.self, configurations: .postgres(url))
        let context = ModelContext(container)
        for number in 0..<8 { try context.insert(row(number)) }
        proxy.dropAnswer(toPipelineOf: 8)
        do {
          try context.save()
          Issue.record("a save whose pipeline lost its connection returned")
        } catch let error as StoreError {
          #expect(error.code == .connectionLost)
        }
        #expect(proxy.answersDropped == 1)
        let direct = try ModelContainer(for: BulkRow.self, configurations: store.configuration)
        #expect(try ModelContext(direct).fetchCount(FetchDescriptor<BulkRow>()) == 0)
        #expect(try context.save().changes["BulkRow"]?.inserted.count == 8)
        #expect(try ModelContext(direct).fetchCount(FetchDescriptor<BulkRow>()) == 8)
      }

      /// The connection breaks while the rows are being staged: the save fails as lost
      /// (nothing was committed), writes nothing, and the container saves again afterwards.
      @Test func aConnectionLostDuringTheCopyIsConnectionLost() throws {
        let store = try freshStore(.postgres)
        let proxy = try FaultProxy(cluster: PostgresCluster.shared())
        defer { proxy.stop() }
        let url = try #require(URL(string: try proxy.url(replacingHostOf: store.argument)))
        let container = try ModelContainer(for: BulkRow.self, configurations: .postgres(url))
        let context = ModelContext(container)
        for number in 0..<100 { try context.insert(row(number)) }
        proxy.dropAnswer(toQueryStartingWith: "SAVEPOINT kura_bulk_copy")
        do {
          try context.save()
          Issue.record("a save whose copy lost its connection returned")
        } catch let error as StoreError {
          #expect(error.code == .connectionLost)
        }
        #expect(proxy.answersDropped == 1)
        let direct = try ModelContainer(for: BulkRow.self, configurations: store.configuration)
        #expect(try ModelContext(direct).fetchCount(FetchDescriptor<BulkRow>()) == 0)
        #expect(try context.save().changes["BulkRow"]?.inserted.count == 100)
        #expect(try ModelContext(direct).fetchCount(FetchDescriptor<BulkRow>()) == 100)
      }
    }
  }
#endif
