import Foundation
import KuraPostgreSQL

@testable import Kura

/// A model with one property of every storable type.
package struct Everything: PersistentModel, Equatable {
  package enum Mood: String, Codable, Sendable { case happy, sad }
  package enum Level: Int, Codable, Sendable { case low = 1, high = 2 }
  package struct Address: Codable, Sendable, Equatable {
    package var city: String
    package var lines: [String]

    /// A value of each stored property.
    package init(city: String, lines: [String]) {
      self.city = city
      self.lines = lines
    }
  }

  package var id = UUID()
  package var int: Int = -7
  package var int8: Int8 = -8
  package var int16: Int16 = 16
  package var int32: Int32 = -32
  package var int64: Int64 = .min
  package var uint: UInt = 7
  package var uint8: UInt8 = 255
  package var uint16: UInt16 = 65535
  package var uint32: UInt32 = 4_294_967_295
  package var uint64: UInt64 = UInt64(Int64.max)
  package var double: Double = 2.5
  package var float: Float = -1.25
  package var bool: Bool = true
  package var string: String = "高速代金 'quoted' \"double\""
  package var empty: String = ""
  package var date = Date(timeIntervalSince1970: 1_700_000_000.25)
  package var uuid = UUID()
  package var url = URL(string: "https://example.com/a%20b?q=1") ?? URL(fileURLWithPath: "/")
  package var data = Data([0, 1, 0, 255])
  package var mood: Mood = .sad
  package var level: Level = .high
  package var address = Address(city: "Kyoto", lines: ["1-2", "Gion"])
  package var tags: [String] = ["a", "b"]
  package var optionalInt: Int? = nil
  package var optionalString: String? = "x"
  package var optionalDate: Date? = nil
  package var optionalUUID: UUID? = UUID()
  package var optionalBool: Bool? = false
  package var optionalMood: Mood? = nil
  package var optionalAddress: Address? = nil
  package var optionalData: Data? = Data()

  /// A value of each stored property.
  package init(
    id: UUID = UUID(), int: Int = -7, int8: Int8 = -8, int16: Int16 = 16, int32: Int32 = -32,
    int64: Int64 = .min, uint: UInt = 7, uint8: UInt8 = 255, uint16: UInt16 = 65535,
    uint32: UInt32 = 4_294_967_295, uint64: UInt64 = UInt64(Int64.max), double: Double = 2.5,
    float: Float = -1.25, bool: Bool = true, string: String = "高速代金 'quoted' \"double\"",
    empty: String = "", date: Date = Date(timeIntervalSince1970: 1_700_000_000.25),
    uuid: UUID = UUID(),
    url: URL = URL(string: "https://example.com/a%20b?q=1") ?? URL(fileURLWithPath: "/"),
    data: Data = Data([0, 1, 0, 255]), mood: Mood = .sad, level: Level = .high,
    address: Address = Address(city: "Kyoto", lines: ["1-2", "Gion"]), tags: [String] = ["a", "b"],
    optionalInt: Int? = nil, optionalString: String? = "x", optionalDate: Date? = nil,
    optionalUUID: UUID? = UUID(), optionalBool: Bool? = false, optionalMood: Mood? = nil,
    optionalAddress: Address? = nil, optionalData: Data? = Data()
  ) {
    self.id = id
    self.int = int
    self.int8 = int8
    self.int16 = int16
    self.int32 = int32
    self.int64 = int64
    self.uint = uint
    self.uint8 = uint8
    self.uint16 = uint16
    self.uint32 = uint32
    self.uint64 = uint64
    self.double = double
    self.float = float
    self.bool = bool
    self.string = string
    self.empty = empty
    self.date = date
    self.uuid = uuid
    self.url = url
    self.data = data
    self.mood = mood
    self.level = level
    self.address = address
    self.tags = tags
    self.optionalInt = optionalInt
    self.optionalString = optionalString
    self.optionalDate = optionalDate
    self.optionalUUID = optionalUUID
    self.optionalBool = optionalBool
    self.optionalMood = optionalMood
    self.optionalAddress = optionalAddress
    self.optionalData = optionalData
  }
}

/// A student as in the seed app, with a unique name.
package struct UniqueStudent: PersistentModel, Equatable {
  package var id = UUID()
  package var name: String
  package var year: Int
  package static var schema: Schema<UniqueStudent> { Schema(.unique(\.name), .index(\.year)) }

  /// A value of each stored property.
  package init(id: UUID = UUID(), name: String, year: Int) {
    self.id = id
    self.name = name
    self.year = year
  }
}

/// A model with an integer id.
package struct Counter: PersistentModel, Equatable {
  package var id: Int
  package var value: Double

  /// A value of each stored property.
  package init(id: Int, value: Double) {
    self.id = id
    self.value = value
  }
}

/// A model with a String id and a custom table name.
package struct Tag: PersistentModel, Equatable {
  package var id: String
  package var color: String?
  package static var schemaName: String { "tags" }

  /// A value of each stored property.
  package init(id: String, color: String? = nil) {
    self.id = id
    self.color = color
  }
}
