import Foundation
import KuraBase
import KuraSQLite

/// One stored row of a model read without its Swift type: the column values as stored, and a
/// typed view of each column through subscripts, so that a `Predicate<BrowsedRow>` can name a
/// column (`\BrowsedRow[text: "name"]`) and the store's predicate translation
/// (``SQLTranslator``) and `Predicate.evaluate` treat it as they treat a model's property of
/// that type.
///
/// A subscript of the wrong type for a column reads its type's zero value; the key paths a
/// ``BrowsedModel`` makes always match the column.
package struct BrowsedRow: Sendable {
  /// The values by column name, as stored.
  package var values: [String: DatabaseValue]

  package init(values: [String: DatabaseValue]) { self.values = values }

  private func stored(_ name: String) -> DatabaseValue { values[name] ?? .null }

  package subscript(integer name: String) -> Int64 { self[optionalInteger: name] ?? 0 }
  package subscript(optionalInteger name: String) -> Int64? {
    switch stored(name) {
    case .integer(let value): return value
    case .real(let value): return Int64(exactly: value)
    default: return nil
    }
  }

  package subscript(real name: String) -> Double { self[optionalReal: name] ?? .nan }
  package subscript(optionalReal name: String) -> Double? {
    BrowsedRow.number(stored(name))
  }

  package subscript(text name: String) -> String { self[optionalText: name] ?? "" }
  package subscript(optionalText name: String) -> String? {
    if case .text(let value) = stored(name) { return value }
    return nil
  }

  package subscript(bool name: String) -> Bool { self[optionalBool: name] ?? false }
  package subscript(optionalBool name: String) -> Bool? {
    if case .integer(let value) = stored(name) { return value != 0 }
    return nil
  }

  package subscript(date name: String) -> Date {
    self[optionalDate: name] ?? Date(timeIntervalSinceReferenceDate: .nan)
  }
  package subscript(optionalDate name: String) -> Date? {
    BrowsedRow.number(stored(name)).map { Date(timeIntervalSinceReferenceDate: $0) }
  }

  package subscript(uuid name: String) -> UUID { self[optionalUUID: name] ?? UUID(uuid: UUID_NULL) }
  package subscript(optionalUUID name: String) -> UUID? {
    if case .text(let value) = stored(name) { return UUID(uuidString: value) }
    return nil
  }

  package subscript(url name: String) -> URL {
    self[optionalURL: name] ?? URL(fileURLWithPath: "/")
  }
  package subscript(optionalURL name: String) -> URL? {
    if case .text(let value) = stored(name) { return URL(string: value) }
    return nil
  }

  package subscript(data name: String) -> Data { self[optionalData: name] ?? Data() }
  package subscript(optionalData name: String) -> Data? {
    if case .blob(let value) = stored(name) { return value }
    return nil
  }

  /// A JSON column's text (its value as stored): SQL can only test it for `nil`.
  package subscript(json name: String) -> String { self[optionalJSON: name] ?? "" }
  package subscript(optionalJSON name: String) -> String? {
    if case .text(let value) = stored(name) { return value }
    return nil
  }

  /// The number a REAL column holds as the store reads it: `-0.0` is stored as its exact blob.
  package static func number(_ value: DatabaseValue) -> Double? {
    switch value {
    case .real(let number): return number
    case .integer(let number): return Double(number)
    case .blob(let data): return Double(exactSQLiteBlob: data)
    default: return nil
    }
  }
}

private let UUID_NULL: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
