import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// Every plain column type, for the compiled row plan (no enums or nested values).
private struct PlainEverything: PersistentModel, Equatable {
  var id = UUID()
  var int: Int = -7
  var int8: Int8 = .min
  var int16: Int16 = 16
  var int32: Int32 = -32
  var int64: Int64 = .min
  var uint: UInt = 7
  var uint8: UInt8 = 255
  var uint16: UInt16 = 65535
  var uint32: UInt32 = 4_294_967_295
  var uint64: UInt64 = UInt64(Int64.max)
  var double: Double = -0.0
  var float: Float = .infinity
  var bool: Bool = true
  var string: String = "高速代金 'quoted' \"double\""
  var date = Date(timeIntervalSince1970: 1_700_000_000.25)
  var uuid = UUID()
  var url = URL(string: "https://example.com/a%20b?q=1") ?? URL(fileURLWithPath: "/")
  var data = Data([0, 1, 0, 255])
  var optionalInt: Int? = nil
  var optionalString: String? = "maybe"
  var optionalDate: Date? = nil
  var optionalUUID: UUID? = UUID()
  var optionalURL: URL? = nil
  var optionalData: Data? = Data()
  var optionalBool: Bool? = false
  var optionalDouble: Double? = nil
}

/// A model whose conformance stores a property transformed: it must keep `Codable`.
private struct Shouting: PersistentModel, Equatable {
  var id: Int
  var word: String

  enum CodingKeys: String, CodingKey { case id, word }

  init(id: Int, word: String) {
    self.id = id
    self.word = word
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(Int.self, forKey: .id)
    word = try container.decode(String.self, forKey: .word).lowercased()
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(word.uppercased(), forKey: .word)
  }
}

/// A model whose decoding fills a property from a constant: it must keep `Codable`.
private struct Defaulted: PersistentModel, Equatable {
  var id: Int
  var count: Int

  enum CodingKeys: String, CodingKey { case id, count }

  init(id: Int, count: Int) {
    self.id = id
    self.count = count
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(Int.self, forKey: .id)
    count = 99
  }
}

@Suite("Row plan")
struct RowPlanTests {
  @Test func plainModelsGetAPlanOthersKeepCodable() throws {
    #expect(
      RowPlan.of(PlainEverything.self, schema: try ModelSchema.of(PlainEverything.self)) != nil)
    #expect(RowPlan.of(Everything.self, schema: try ModelSchema.of(Everything.self)) == nil)
    #expect(RowPlan.of(Shouting.self, schema: try ModelSchema.of(Shouting.self)) == nil)
    #expect(RowPlan.of(Defaulted.self, schema: try ModelSchema.of(Defaulted.self)) == nil)
  }

  @Test(arguments: TestEngine.enabled)
  func everyPlainColumnTypeRoundTrips(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .file("store.sqlite"))
    let first = PlainEverything()
    var second = PlainEverything()
    second.int64 = .max
    second.optionalInt = 42
    second.optionalString = nil
    second.optionalDate = Date(timeIntervalSinceReferenceDate: -3.5)
    second.optionalUUID = nil
    second.optionalURL = URL(string: "file:///tmp/x")
    second.optionalData = nil
    second.optionalBool = nil
    second.optionalDouble = .greatestFiniteMagnitude
    do {
      let container = try ModelContainer(
        for: PlainEverything.self, configurations: store.configuration)
      let context = ModelContext(container)
      try context.insert(first)
      try context.insert(second)
      try context.save()
    }
    let container = try ModelContainer(
      for: PlainEverything.self, configurations: store.configuration)
    let context = ModelContext(container)
    let fetched = try context.fetch(QueryPlan<PlainEverything>(orderBy: #""int64""#))
    #expect(fetched == [first, second])
    #expect(try context.model(for: second.id, as: PlainEverything.self) == second)
  }

  @Test(arguments: TestEngine.enabled)
  func integerAboveTheStoreRangeIsRefused(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(
      for: PlainEverything.self, configurations: store.configuration)
    let context = ModelContext(container)
    /// Saving `model` fails on `property`, whose value the message names; nothing stays pending.
    func expectRefused(_ model: PlainEverything, property: String, value: String) throws {
      try context.insert(model)
      #expect {
        try context.save()
      } throws: { error in
        let error = try #require(error as? StoreError)
        return error.code == .encodingFailed && error.property == property
          && error.message.contains("\(value) is above the largest integer")
      }
      context.rollback()
    }
    var model = PlainEverything()
    model.uint64 = .max
    try expectRefused(model, property: "uint64", value: "18446744073709551615")
    // `UInt` too; one above `Int64.max` is refused, `Int64.max` itself is stored.
    model.uint64 = UInt64(Int64.max)
    model.uint = UInt(Int64.max) + 1
    try expectRefused(model, property: "uint", value: "9223372036854775808")
    model.uint = UInt(Int64.max)
    try context.insert(model)
    try context.save()
    #expect(try context.model(for: model.id, as: PlainEverything.self) == model)
  }

  @Test(arguments: TestEngine.enabled)
  func customConformancesStillRun(_ engine: TestEngine) throws {
    let store = try freshStore(engine, sqlite: .memory)
    let container = try ModelContainer(
      for: Shouting.self, Defaulted.self, configurations: store.configuration)
    let context = ModelContext(container)
    try context.insert(Shouting(id: 1, word: "Quiet"))
    try context.insert(Defaulted(id: 1, count: 3))
    try context.save()
    #expect(try context.fetch(QueryPlan<Shouting>()) == [Shouting(id: 1, word: "quiet")])
    #expect(try context.fetch(QueryPlan<Defaulted>()) == [Defaulted(id: 1, count: 99)])
  }
}
