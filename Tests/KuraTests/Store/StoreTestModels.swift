import Foundation

@testable import Kura

/// A model with one property of every storable type.
struct Everything: PersistentModel, Equatable {
  enum Mood: String, Codable, Sendable { case happy, sad }
  enum Level: Int, Codable, Sendable { case low = 1, high = 2 }
  struct Address: Codable, Sendable, Equatable {
    var city: String
    var lines: [String]
  }

  var id = UUID()
  var int: Int = -7
  var int8: Int8 = -8
  var int16: Int16 = 16
  var int32: Int32 = -32
  var int64: Int64 = .min
  var uint: UInt = 7
  var uint8: UInt8 = 255
  var uint16: UInt16 = 65535
  var uint32: UInt32 = 4_294_967_295
  var uint64: UInt64 = UInt64(Int64.max)
  var double: Double = 2.5
  var float: Float = -1.25
  var bool: Bool = true
  var string: String = "高速代金 'quoted' \"double\""
  var empty: String = ""
  var date = Date(timeIntervalSince1970: 1_700_000_000.25)
  var uuid = UUID()
  var url = URL(string: "https://example.com/a%20b?q=1") ?? URL(fileURLWithPath: "/")
  var data = Data([0, 1, 0, 255])
  var mood: Mood = .sad
  var level: Level = .high
  var address = Address(city: "Kyoto", lines: ["1-2", "Gion"])
  var tags: [String] = ["a", "b"]
  var optionalInt: Int? = nil
  var optionalString: String? = "x"
  var optionalDate: Date? = nil
  var optionalUUID: UUID? = UUID()
  var optionalBool: Bool? = false
  var optionalMood: Mood? = nil
  var optionalAddress: Address? = nil
  var optionalData: Data? = Data()
}

/// A student as in the seed app, with a unique name.
struct UniqueStudent: PersistentModel, Equatable {
  var id = UUID()
  var name: String
  var year: Int
  static var schema: Schema<UniqueStudent> { Schema(.unique(\.name), .index(\.year)) }
}

/// A model with an integer id.
struct Counter: PersistentModel, Equatable {
  var id: Int
  var value: Double
}

/// A model with a String id and a custom table name.
struct Tag: PersistentModel, Equatable {
  var id: String
  var color: String?
  static var schemaName: String { "tags" }
}
