import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Model schema")
struct ModelSchemaTests {
  @Test func derivesOneColumnPerStoredPropertyWithKinds() throws {
    let schema = try ModelSchema.of(Everything.self)
    #expect(schema.tableName == "Everything")
    let kinds = schema.columns.map { "\($0.name):\($0.kind.rawValue)\($0.isOptional ? "?" : "")" }
    #expect(
      kinds == [
        "id:uuid", "int:integer", "int8:integer", "int16:integer", "int32:integer",
        "int64:integer", "uint:integer", "uint8:integer", "uint16:integer", "uint32:integer",
        "uint64:integer", "double:real", "float:real", "bool:bool", "string:text", "empty:text",
        "date:date", "uuid:uuid", "url:url", "data:blob", "mood:text", "level:integer",
        "address:json", "tags:json", "optionalInt:integer?", "optionalString:text?",
        "optionalDate:date?", "optionalUUID:uuid?", "optionalBool:bool?", "optionalMood:text?",
        "optionalAddress:json?", "optionalData:blob?",
      ])
    #expect(schema.column(for: \Everything.date)?.name == "date")
    #expect(schema.column(for: \Everything.optionalMood)?.kind == .text)
    #expect(schema.primaryKey.name == "id")
  }

  @Test func createsTableWithNotNullAndPrimaryKey() throws {
    let schema = try ModelSchema.of(Tag.self)
    #expect(
      StoreSetup(url: nil, engine: SQLiteStoreEngine()).createTableSQL(schema)
        == #"CREATE TABLE "tags" ("id" TEXT NOT NULL COLLATE kura_unicode PRIMARY KEY, "color" TEXT)"#
    )
    let unique = try ModelSchema.of(UniqueStudent.self)
    #expect(
      StoreSQL.upsert(unique, engine: SQLiteStoreEngine())
        == #"INSERT INTO "UniqueStudent" ("id", "name", "year") VALUES (?, ?, ?) "#
        + #"ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "year" = excluded."year" "#
        + #"ON CONFLICT ("name" COLLATE kura_unicode) DO UPDATE SET "name" = excluded."name", "#
        + #""year" = excluded."year""#
    )
  }

  @Test func rejectsPropertyThatIsNotCodable() throws {
    struct Handle: Sendable {}
    struct Broken: PersistentModel {
      var id = UUID()
      var name = ""
      var handle = Handle()
      enum CodingKeys: String, CodingKey { case id, name }
    }
    #expect {
      _ = try ModelSchema.of(Broken.self)
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .unsupportedProperty && error.model == "Broken"
        && error.property == "handle"
        && error.message
          == "Can't store `Broken.handle`: its type `Handle` is not Codable. Make it Codable, or "
          + "keep it out of the model."
    }
  }

  @Test func rejectsIdThatIsNotUUIDIntegerOrString() throws {
    struct Odd: PersistentModel {
      var id: Double
    }
    #expect {
      _ = try ModelSchema.of(Odd.self)
    } throws: { error in
      (error as? StoreError)?.code == .unsupportedProperty
        && (error as? StoreError)?.property == "id"
    }
  }

  @Test func databaseValueUsesTheDocumentedMappings() throws {
    let id = try #require(UUID(uuidString: "3f4d8393-8d86-4c81-afb9-1854a5e38bdc"))
    #expect(databaseValue(for: id, kind: .uuid) == .text("3F4D8393-8D86-4C81-AFB9-1854A5E38BDC"))
    #expect(databaseValue(for: true, kind: .bool) == .integer(1))
    let date = Date(timeIntervalSinceReferenceDate: 2.5)
    #expect(databaseValue(for: date, kind: .date) == .real(2.5))
    #expect(databaseValue(for: Everything.Mood.happy, kind: .text) == .text("happy"))
    #expect(databaseValue(for: Everything.Level.high, kind: .integer) == .integer(2))
    #expect(databaseValue(for: Int?.none as Any, kind: .integer) == .null)
    #expect(
      databaseValue(for: Everything.Address(city: "K", lines: []), kind: .json)
        == .text(#"{"city":"K","lines":[]}"#))
    #expect(databaseValue(for: "text", kind: .integer) == nil)
  }
}

/// The store test model `Tag`, not swift-testing's.
private typealias Tag = KuraEngineTestSupport.Tag
