import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer
import KuraTestSupport
import Testing

@testable import Kura

/// What a save with sync on writes: the outbox entry's compact form (and the JSON rows of
/// earlier versions, still read), the registers it stamps, and the clock and outbox number it
/// moves on.
@Suite("Sync outbox")
struct SyncOutboxTests {
  private static let replica = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

  private static func container(_ directory: TemporaryDirectory) throws -> ModelContainer {
    try SyncLocalStoreTests.container(directory)
  }

  private static func outbox(_ container: ModelContainer) throws -> [SyncSave] {
    try SyncLocalStoreTests.outbox(container)
  }

  /// Changes of every shape: each value kind at its edges, deletes, runs of one record and one
  /// stamp (which the form writes once) and their breaks.
  private static func changes(seed: UInt64) -> [SyncChange] {
    var random = SeededGenerator(seed: seed)
    let values: [DatabaseValue] = [
      .null, .integer(0), .integer(-1), .integer(.max), .integer(.min), .integer(300),
      .real(-0.0), .real(.nan), .real(.infinity), .real(0.1 + 0.2), .text(""),
      .text("é\u{301}K\u{212A}\0"), .text(String(repeating: "x", count: 200)),
      .blob(Data()), .blob(Data([0, 1, 255])),
    ]
    let replicas = [replica, UUID(), UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))]
    var changes: [SyncChange] = []
    var stamp = SyncStamp(wall: 1_764_000_000_000, counter: 0, replica: replica)
    var record = (model: "Trip", id: "1", incarnation: Int64(1))
    for _ in 0..<Int.random(in: 1...40, using: &random) {
      if Bool.random(using: &random) {
        let walls = [0, 1, SyncStamp.maximumWall, min(stamp.wall + 1, SyncStamp.maximumWall)]
        stamp = SyncStamp(
          wall: walls.randomElement(using: &random) ?? 0,
          counter: [0, 1, .max].randomElement(using: &random) ?? 0,
          replica: replicas.randomElement(using: &random) ?? replica)
      }
      if Int.random(in: 0..<3, using: &random) == 0 {
        record = (
          ["Trip", "Hotel", "旅"].randomElement(using: &random) ?? "Trip",
          String(Int.random(in: 1...3, using: &random)),
          [1, 2, .max].randomElement(using: &random) ?? 1
        )
      }
      if Int.random(in: 0..<5, using: &random) == 0 {
        changes.append(
          .delete(record.model, id: record.id, incarnation: record.incarnation, stamp: stamp))
      } else {
        changes.append(
          .set(
            record.model, id: record.id, incarnation: record.incarnation,
            property: ["name", "budget", "p"].randomElement(using: &random) ?? "p",
            to: values.randomElement(using: &random) ?? .null, stamp: stamp))
      }
    }
    return changes
  }

  private static func decode(_ bytes: [UInt8]) -> [SyncChange]? {
    bytes.withUnsafeBytes { SyncChange.changes(compact: $0) }
  }

  @Test func theCompactFormReadsBackEveryChangeAsItsJSONDoes() throws {
    for seed in 1...200 as ClosedRange<UInt64> {
      let changes = Self.changes(seed: seed)
      let decoded = try #require(Self.decode(SyncChange.compactEncoding(of: changes)))
      #expect(decoded == changes, "seed \(seed)")
      let json = try JSONDecoder().decode(
        [SyncChange].self, from: try JSONEncoder().encode(changes))
      #expect(decoded == json, "seed \(seed)")
    }
    #expect(Self.decode(SyncChange.compactEncoding(of: [])) == [])
  }

  /// Every cut of a compact form, a byte too many, and forms that break the rules the JSON
  /// form checks (an empty model, id or property, incarnation 0, an unknown flag or value
  /// kind, text that is not UTF-8) are not read.
  @Test func aCutOrBrokenCompactFormIsNotRead() throws {
    let changes = Self.changes(seed: 7)
    let bytes = SyncChange.compactEncoding(of: changes)
    for length in 0..<bytes.count {
      #expect(Self.decode(Array(bytes[0..<length])) == nil, "first \(length) bytes")
    }
    #expect(Self.decode(bytes + [0]) == nil)
    let stamp = SyncStamp(wall: 5, counter: 0, replica: Self.replica)
    func one(_ change: SyncChange) -> [UInt8] { SyncChange.compactEncoding(of: [change]) }
    let good = one(.set("Trip", id: "1", incarnation: 1, property: "p", to: .null, stamp: stamp))
    #expect(Self.decode(good)?.count == 1)
    let broken: [String: [UInt8]] = [
      "version 2": [2] + good.dropFirst(),
      "flag 8": Array(good[0..<2]) + [8] + good.dropFirst(3),
      "first change says same record": Array(good[0..<2]) + [2] + good.dropFirst(3),
      "empty model": one(
        .set("", id: "1", incarnation: 1, property: "p", to: .null, stamp: stamp)),
      "empty id": one(
        .set("Trip", id: "", incarnation: 1, property: "p", to: .null, stamp: stamp)),
      "empty property": one(
        .set("Trip", id: "1", incarnation: 1, property: "", to: .null, stamp: stamp)),
      "incarnation 0": one(
        .set("Trip", id: "1", incarnation: 0, property: "p", to: .null, stamp: stamp)),
      "value kind 5": good.dropLast() + [5],
      "not UTF-8": Array(good[0..<4]) + [0xFF] + good.dropFirst(5),
      "a count larger than the form": [1, 0xFF, 0xFF, 0x03] + good.dropFirst(2),
    ]
    for (name, bytes) in broken {
      #expect(Self.decode(bytes) == nil, "\(name)")
    }
  }

  /// A store that an earlier version wrote keeps JSON (TEXT) rows in its outbox: they are
  /// read as before, in order with the compact rows written after them; a compact row
  /// damaged by hand is reported (and nothing sent), as a damaged JSON row is.
  @Test func outboxRowsOfAnEarlierVersionAreReadAndADamagedCompactRowIsReported() throws {
    let directory = TemporaryDirectory()
    let container = try Self.container(directory)
    let stamp = SyncStamp(wall: 5, counter: 1, replica: Self.replica)
    let earlier: [SyncChange] = [
      .set("LocalTrip", id: "9", incarnation: 1, property: "name", to: .text("Nara"), stamp: stamp)
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let file = try Connection(path: directory.file("replica.store").path)
    try file.run(
      "INSERT INTO kura_sync_outbox (sequence, changes) VALUES (1, ?)",
      [.text(String(decoding: try encoder.encode(earlier), as: UTF8.self))])
    try file.run("INSERT INTO kura_sync_state (key, value) VALUES ('nextSequence', '2')")
    let context = ModelContext(container)
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 900))
    try context.save()
    let saves = try Self.outbox(container)
    #expect(saves.map(\.sequence) == [1, 2])
    #expect(saves.first?.changes == earlier)
    #expect(saves.last?.changes.map(\.property) == ["budget", "name"])
    #expect(saves.last?.changes.map(\.value) == [.integer(900), .text("Kyoto")])
    #expect(
      try file.queryFirst("SELECT typeof(changes) FROM kura_sync_outbox WHERE sequence = 2") {
        $0.string(at: 0)
      } == "blob")
    try file.run("UPDATE kura_sync_outbox SET changes = x'01ff' WHERE sequence = 2")
    do {
      _ = try Self.outbox(container)
      Issue.record("a damaged compact outbox row was read")
    } catch let error as SyncError {
      #expect(error.code == .damagedOutbox)
      #expect(error.message.hasPrefix("Can't send save 2 of the sync outbox: it is damaged"))
    }
  }

  /// A save writes the registers of the properties it changed, with its stamp; the others keep
  /// theirs. A register stamped later than the save (by a clock that was not kept) keeps its
  /// value, as the merge rule says, and the save still lists the change. A delete leaves no
  /// registers; the next insert starts the next incarnation with all of its properties.
  @Test func aSaveStampsTheRegistersOfWhatChangedAndKeepsTheMergeRule() throws {
    let directory = TemporaryDirectory()
    let container = try Self.container(directory)
    let context = ModelContext(container)
    let file = try Connection(path: directory.file("replica.store").path)
    let key = SyncMergeState.Key(model: "LocalTrip", id: "1")
    // The registers once the saves are recorded (as a push records them first).
    func registers() throws -> [String: (value: DatabaseValue, stamp: String)] {
      try container.pool.write { db in
        try SyncLocalStore.recordLocalSaves(container: container, db: db)
        return try SyncLocalStore.record(key, db)
      }.properties.mapValues { ($0.value, $0.stamp.text) }
    }
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 900))
    try context.save()
    let first = try registers()
    #expect(first.mapValues(\.value) == ["name": .text("Kyoto"), "budget": .integer(900)])
    try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 700))
    try context.save()
    let second = try registers()
    #expect(second.mapValues(\.value) == ["name": .text("Kyoto"), "budget": .integer(700)])
    #expect(second["name"]?.stamp == first["name"]?.stamp)
    let budgetStamp = try #require(second["budget"]?.stamp)
    #expect(budgetStamp > (first["budget"]?.stamp ?? ""))
    #expect(try budgetStamp == Self.outbox(container).last?.changes.first?.stamp.text)
    let future = SyncStamp(wall: SyncStamp.maximumWall, counter: 0, replica: Self.replica).text
    try container.pool.write { db in
      var record = try SyncLocalStore.record(key, db)
      record.properties["name"] = .init(
        value: .text("Nara"), stamp: try #require(SyncStamp(text: future)))
      try SyncLocalStore.storeRecord(record, key, db)
    }
    try context.insert(LocalTrip(id: 1, name: "Osaka", budget: 700))
    try context.save()
    #expect(try registers()["name"]?.value == .text("Nara"))
    #expect(try registers()["name"]?.stamp == future)
    #expect(try Self.outbox(container).last?.changes.map(\.value) == [.text("Osaka")])
    try context.delete(LocalTrip(id: 1, name: "Osaka", budget: 700))
    try context.save()
    #expect(try registers().isEmpty)
    #expect(
      try file.queryFirst("SELECT incarnation, deleted IS NOT NULL FROM kura_sync_records") {
        "\($0.int64(at: 0)) \($0.int64(at: 1))"
      } == "1 1")
    try context.insert(LocalTrip(id: 1, name: "Again", budget: 1))
    try context.save()
    #expect(try registers().mapValues(\.value) == ["name": .text("Again"), "budget": .integer(1)])
    #expect(
      try file.queryFirst("SELECT incarnation, deleted IS NULL FROM kura_sync_records") {
        "\($0.int64(at: 0)) \($0.int64(at: 1))"
      } == "2 1")
    let saves = try Self.outbox(container)
    #expect(saves.map(\.sequence) == [1, 2, 3, 4, 5])
    #expect(saves.last?.changes.map(\.incarnation) == [2, 2])
    let clock = try #require(
      try file.queryFirst("SELECT value FROM kura_sync_state WHERE key = 'clock'") {
        SyncStamp(text: $0.string(at: 0))
      })
    #expect(clock == saves.last?.changes.first?.stamp)
  }
}

extension SyncOutboxTests {
  /// The sync tables as an earlier version made them (rowid tables, each with its primary
  /// key's index, and the registers in a table of their own, folded into the records at open):
  /// a store that has them keeps them, and its saves record the same changes as a store made
  /// now (whose tables are `WITHOUT ROWID`).
  @Test func aStoreWithTheTablesOfAnEarlierVersionRecordsTheSameChanges() throws {
    let earlier = TemporaryDirectory()
    _ = try Self.container(earlier)  // a Kura store, whose sync tables are made again below
    try Connection(path: earlier.file("replica.store").path).execute(
      """
      DROP TABLE kura_sync_state; DROP TABLE kura_sync_records;
      DROP TABLE kura_sync_created;
      CREATE TABLE kura_sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE kura_sync_records (
        model TEXT NOT NULL, id TEXT NOT NULL, incarnation INTEGER NOT NULL, deleted TEXT,
        PRIMARY KEY (model, id));
      CREATE TABLE kura_sync_registers (
        model TEXT NOT NULL, id TEXT NOT NULL, property TEXT NOT NULL, value,
        stamp TEXT NOT NULL, PRIMARY KEY (model, id, property));
      CREATE TABLE kura_sync_created (
        model TEXT NOT NULL, id TEXT NOT NULL, incarnation INTEGER NOT NULL,
        stamp TEXT NOT NULL, PRIMARY KEY (model, id, incarnation));
      """)
    let now = TemporaryDirectory()
    var described: [[[String]]] = []  // each store's saves, each save's changes
    var withoutRowID: [Int64] = []
    for directory in [earlier, now] {
      let container = try Self.container(directory)
      let context = ModelContext(container)
      // Each save recorded before the next (as when each is pushed before the next).
      try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 900))
      try context.insert(LocalTrip(id: 2, name: "Nara", budget: 100))
      try context.save()
      _ = try Self.outbox(container)
      try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 700))
      try context.save()
      _ = try Self.outbox(container)
      try context.delete(LocalTrip(id: 2, name: "Nara", budget: 100))
      try context.save()
      _ = try Self.outbox(container)
      try context.insert(LocalTrip(id: 2, name: "Nara", budget: 5))
      try context.save()
      described.append(
        try Self.outbox(container).map { save in
          save.changes.map {
            "\($0.id) \($0.incarnation) \($0.property ?? "deleted") \($0.value ?? .null)"
          }
        })
      withoutRowID.append(
        try Connection(path: directory.file("replica.store").path).queryFirst(
          "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'kura_sync_%' "
            + "AND sql LIKE '%WITHOUT ROWID'"
        ) { $0.int64(at: 0) } ?? -1)
    }
    #expect(described[0] == described[1])
    #expect(
      described[0] == [
        [
          "1 1 budget 900", "1 1 name 'Kyoto'", "2 1 budget 100", "2 1 name 'Nara'",
        ],
        ["1 1 budget 700"], ["2 1 deleted NULL"],
        ["2 2 budget 5", "2 2 name 'Nara'"],
      ])
    #expect(withoutRowID == [0, 3])
  }

  /// A store whose registers an earlier version kept in a row per property
  /// (`kura_sync_registers`) has them folded into its records when it opens: the table is
  /// gone, each id's registers (values and stamps) read the same, and the next save compares
  /// the row with them (an edit of one property sends that property only).
  @Test func registersKeptInARowPerPropertyAreFoldedIntoTheRecordsAtOpen() throws {
    let directory = TemporaryDirectory()
    let path = directory.file("replica.store").path
    do {
      let container = try Self.container(directory)
      let context = ModelContext(container)
      try context.insert(LocalTrip(id: 1, name: "Kyoto", budget: 900))
      try context.insert(LocalTrip(id: 2, name: "Nara", budget: 100))
      try context.save()
    }
    let old = SyncStamp(wall: 1_700_000_000_000, counter: 3, replica: Self.replica)
    let older = SyncStamp(wall: 1_600_000_000_000, counter: 0, replica: Self.replica)
    // The layout an earlier version made, holding these registers.
    try Connection(path: path).execute(
      """
      DROP TABLE kura_sync_records;
      CREATE TABLE kura_sync_records (
        model TEXT NOT NULL, id TEXT NOT NULL, incarnation INTEGER NOT NULL, deleted TEXT,
        PRIMARY KEY (model, id)) WITHOUT ROWID;
      INSERT INTO kura_sync_records VALUES ('LocalTrip', '1', 1, NULL), ('LocalTrip', '2', 3, NULL);
      CREATE TABLE kura_sync_registers (
        model TEXT NOT NULL, id TEXT NOT NULL, property TEXT NOT NULL, value, stamp TEXT NOT NULL,
        PRIMARY KEY (model, id, property)) WITHOUT ROWID;
      INSERT INTO kura_sync_registers VALUES
        ('LocalTrip', '1', 'name', 'Kyoto', '\(old.text)'),
        ('LocalTrip', '1', 'budget', 900, '\(older.text)'),
        ('LocalTrip', '2', 'name', 'Nara', '\(older.text)'),
        ('LocalTrip', '2', 'budget', 100, '\(older.text)');
      """)
    let container = try Self.container(directory)
    #expect(
      try Connection(path: path).queryFirst(
        "SELECT count(*) FROM sqlite_schema WHERE name = 'kura_sync_registers'"
      ) { $0.int64(at: 0) } == 0)
    let records = try container.pool.read { db in
      try ["1", "2"].map { try SyncLocalStore.record(.init(model: "LocalTrip", id: $0), db) }
    }
    #expect(records[0].incarnation == 1)
    #expect(
      records[0].properties == [
        "name": .init(value: .text("Kyoto"), stamp: old),
        "budget": .init(value: .integer(900), stamp: older),
      ])
    #expect(records[1].incarnation == 3)
    #expect(
      records[1].properties == [
        "name": .init(value: .text("Nara"), stamp: older),
        "budget": .init(value: .integer(100), stamp: older),
      ])
    let before = try Self.outbox(container).count
    let context = ModelContext(container)
    try context.insert(LocalTrip(id: 2, name: "Nara", budget: 150))
    try context.save()
    let last = try #require(try Self.outbox(container).last)
    #expect(try Self.outbox(container).count == before + 1)
    #expect(
      last.changes.map { "\($0.id) \($0.incarnation) \($0.property ?? "") \($0.value ?? .null)" }
        == ["2 3 budget 150"])
    let edited = try container.pool.read {
      try SyncLocalStore.record(.init(model: "LocalTrip", id: "2"), $0)
    }
    #expect(edited.properties["name"] == .init(value: .text("Nara"), stamp: older))
    #expect(edited.properties["budget"]?.stamp == last.changes.first?.stamp)
  }
}
