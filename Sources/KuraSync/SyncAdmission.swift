import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// The check of each pulled change against this replica's own schema, before it is merged:
/// another device (a buggy app version, a leaked token) can send anything the server takes,
/// and one change this store can't hold must cost that change, never the pull.
///
/// A change is admitted when this app has no such model or property (kept in the registers for
/// a later app version, as ever), or when:
/// - its incarnation is one a replica can reach (at most ``maximumIncarnation``, so re-creating
///   the id here never overflows);
/// - its id has the form of the model's id (a UUID id is a UUID as Kura writes it, uppercase;
///   an integer id is an integer that fits the id's type);
/// - its value fits the property: the same kind (text for a `String`, an integer that fits
///   an `Int8` for an `Int8`, …), `null` only for an optional property, a finite number for a
///   `Date`, a case of an enum, a JSON text that decodes for a nested `Codable`, and for a
///   reference the form of the target model's id.
///
/// A change that is not admitted goes to the quarantine (``SyncQuarantine``) and is not merged.
/// A model whose changes are admitted can still lack a property that is neither optional nor
/// defaulted: that is checked when its row is written (it waits in the quarantine until a change
/// sets the property).
package struct SyncAdmission {
  /// The highest incarnation admitted: no replica reaches it by deleting and inserting an id
  /// again, and one more (the next insert) still fits `Int64`.
  package static let maximumIncarnation: Int64 = 1 << 62

  /// What the admission needs of one property, worked out once per pull.
  package struct Property {
    package var column: ColumnSchema
    /// The values its integer type holds (`nil`: every `Int64`, or not an integer).
    package var range: ClosedRange<Int64>?
    /// Whether its type is an enum (`RawRepresentable`), whose raw values must be cases.
    package var isEnum: Bool
    /// The kind and stored name of the model a reference property refers to.
    package var target: (kind: ColumnKind, model: String)?

    package init(_ column: ColumnSchema, target: (kind: ColumnKind, model: String)? = nil) {
      self.column = column
      range = column.kind == .integer ? SyncAdmission.integerRange(column.valueType) : nil
      isEnum = column.valueType is any RawRepresentable.Type
      self.target = target
    }
  }

  /// What the admission needs of one model this app has.
  private struct Model {
    var schema: ModelSchema
    var key: Property
    var properties: [String: Property]
  }

  private var models: [String: Model] = [:]
  /// The last id admitted (changes of one id come together): its form is not checked again.
  private var lastID: SyncMergeState.Key?
  /// The model of the last change (a page's changes come model by model).
  private var lastModel: Model?

  /// The admission of a container's models (by stored name).
  package init(container: ModelContainer) {
    for schema in container.schemas.values {
      var targets: [String: (kind: ColumnKind, model: String)] = [:]
      for reference in container.graph.attributesByTable[schema.tableName]?.references ?? [] {
        guard
          let target = container.schemas.values.first(where: {
            $0.tableName == reference.targetTable
          })
        else { continue }
        targets[reference.column] = (target.primaryKey.kind, target.storedName)
      }
      var properties: [String: Property] = [:]
      for column in schema.columns where properties[column.name] == nil {
        properties[column.name] = Property(column, target: targets[column.name])
      }
      models[schema.storedName] = Model(
        schema: schema, key: Property(schema.primaryKey), properties: properties)
    }
  }

  /// Why `change` can't be stored here, or `nil` when it is admitted.
  package mutating func refusal(of change: SyncChange) -> String? {
    if change.incarnation > Self.maximumIncarnation {
      return
        "Can't take the change of `\(change.model)` `\(change.id)`: its incarnation "
        + "\(change.incarnation) is above \(Self.maximumIncarnation), which no replica reaches by "
        + "deleting and inserting an id again. It was not applied; the model stays as it was."
    }
    let model: Model
    if let last = lastModel, last.schema.storedName == change.model {
      model = last
    } else if let found = models[change.model] {
      model = found
      lastModel = found
    } else {
      return nil
    }
    if lastID?.id != change.id || lastID?.model != change.model {
      if let problem = Self.idProblem(change.id, model.key) {
        return
          "Can't store a `\(change.model)` with the id `\(change.id)`: \(problem). It was not "
          + "applied; this app can't hold that model."
      }
      lastID = SyncMergeState.Key(model: change.model, id: change.id)
    }
    guard let name = change.property, name != model.key.column.name,
      let property = model.properties[name]
    else { return nil }
    let value = change.value ?? .null
    var problem = Self.problem(value, property)
    if problem == nil, value != .null, let target = property.target,
      target.kind != property.column.kind
    {
      let column = ColumnSchema(
        name: name, keyPath: property.column.keyPath, kind: target.kind, isOptional: true,
        valueType: target.kind == .uuid ? UUID.self : property.column.valueType)
      problem = Self.problem(value, Property(column)).map {
        "\($0) (the form of a `\(target.model)`'s id)"
      }
    }
    guard let problem else { return nil }
    return
      "Can't store `\(change.model)` `\(change.id)`'s `\(name)`: \(problem). The change "
      + "was not applied (the model keeps its value); a later change of `\(name)` replaces it."
  }

  /// What is wrong with `id` as the text of a `key` id, or `nil`.
  private static func idProblem(_ id: String, _ key: Property) -> String? {
    guard let stored = SyncLocalStore.keyValue(id, kind: key.column.kind) else {
      return "it is not \(article(key.column.kind)) id"
    }
    return problem(stored, key)
  }

  /// What is wrong with `value` as a value of `property`, or `nil`.
  package static func problem(_ value: DatabaseValue, _ property: Property) -> String? {
    let column = property.column
    var type: String { String(describing: column.valueType) }
    switch (column.kind, value) {
    case (_, .null):
      return column.isOptional ? nil : "the value is null, and `\(column.name)` is not optional"
    case (.integer, .integer(let integer)):
      if let range = property.range, !range.contains(integer) {
        return "\(integer) does not fit `\(type)`"
      }
      return !property.isEnum || decodes(column.valueType, json: Data(String(integer).utf8))
        ? nil : "\(integer) is not a case of `\(type)`"
    case (.real, .real(let real)):
      return real.isNaN ? "the number is NaN as a REAL (Kura sends NaN as its exact bytes)" : nil
    case (.real, .integer):
      return nil
    case (.real, .blob(let data)), (.date, .blob(let data)):
      guard let number = Double(exactSQLiteBlob: data) else {
        return "the value is bytes, not a number"
      }
      return column.kind == .date && !number.isFinite ? "the date is not a finite number" : nil
    case (.date, .real(let real)):
      return real.isFinite ? nil : "the date is \(real), not a finite number"
    case (.date, .integer):
      return nil
    case (.bool, .integer(let integer)):
      return integer == 0 || integer == 1 ? nil : "\(integer) is not a Bool (0 or 1)"
    case (.text, .text(let text)):
      return !property.isEnum || decodes(column.valueType, json: jsonString(text))
        ? nil : "`\(text)` is not a case of `\(type)`"
    case (.uuid, .text(let text)):
      return isUUIDText(text) ? nil : "`\(text)` is not a UUID as Kura writes it (uppercase)"
    case (.url, .text(let text)):
      return URL(string: text) == nil ? "`\(text)` is not a URL" : nil
    case (.json, .text(let text)):
      return decodes(column.valueType, json: Data(text.utf8))
        ? nil : "the JSON text does not decode as `\(type)`"
    case (.blob, .blob):
      return nil
    default:
      return "the value is \(name(value)), where `\(column.name)` (`\(type)`) holds "
        + "\(article(column.kind))"
    }
  }

  /// Whether `text` is a UUID as `UUID.uuidString` writes it (8-4-4-4-12 uppercase hex
  /// digits): the same as `UUID(uuidString: text)?.uuidString == text`, without making one.
  package static func isUUIDText(_ text: String) -> Bool {
    var count = 0
    for byte in text.utf8 {
      switch count {
      case 8, 13, 18, 23:
        guard byte == UInt8(ascii: "-") else { return false }
      default:
        guard
          (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        else { return false }
      }
      count += 1
      if count > 36 { return false }
    }
    return count == 36
  }

  /// The kind of value, in words.
  private static func name(_ value: DatabaseValue) -> String {
    switch value {
    case .null: return "null"
    case .integer: return "an integer"
    case .real: return "a real number"
    case .text: return "text"
    case .blob: return "bytes"
    }
  }

  /// A column kind, in words with its article.
  private static func article(_ kind: ColumnKind) -> String {
    switch kind {
    case .integer: return "an integer"
    case .real: return "a number"
    case .text: return "a text"
    case .blob: return "bytes"
    case .bool: return "a Bool (0 or 1)"
    case .date: return "a date (a finite number)"
    case .uuid: return "a UUID"
    case .url: return "a URL"
    case .json: return "a JSON text"
    }
  }

  /// The values a fixed-width integer type holds, as `Int64` (`nil`: all of them, or not one).
  package static func integerRange(_ type: Any.Type) -> ClosedRange<Int64>? {
    func range<T: FixedWidthInteger>(_: T.Type) -> ClosedRange<Int64> {
      Int64(clamping: T.min)...Int64(clamping: T.max)
    }
    switch type {
    case is Int8.Type: return range(Int8.self)
    case is Int16.Type: return range(Int16.self)
    case is Int32.Type: return range(Int32.self)
    case is UInt8.Type: return range(UInt8.self)
    case is UInt16.Type: return range(UInt16.self)
    case is UInt32.Type: return range(UInt32.self)
    case is UInt.Type, is UInt64.Type: return 0...Int64.max
    case is Int.Type: return range(Int.self)
    default: return nil
    }
  }

  /// `text` as a JSON string.
  private static func jsonString(_ text: String) -> Data {
    (try? JSONEncoder().encode(text)) ?? Data()
  }

  /// Whether `json` decodes as `type` (any type that isn't `Decodable` passes).
  private static func decodes(_ type: Any.Type, json: Data) -> Bool {
    guard let decodable = type as? any Decodable.Type else { return true }
    return decodes(decodable, json)
  }

  private static func decodes<T: Decodable>(_ type: T.Type, _ json: Data) -> Bool {
    (try? ColumnJSON.decoder().decode(T.self, from: json)) != nil
  }
}
