import Foundation
import KuraBase
import KuraSQLite
import Synchronization

/// A model type's compiled row plan: where each column's stored property lives in the model's
/// memory and how it is read and bound, so rows are read and written without `Codable`'s keyed
/// containers (each of whose calls goes through the standard library's unspecialized boxes and
/// looks up generic metadata).
///
/// A plan exists only for a struct whose every stored property has one of the plain column types
/// (the integers, `Double`, `Float`, `Bool`, `String`, `Date`, `UUID`, `URL`, `Data`, and their
/// optionals), and whose `encode(to:)` and `init(from:)` were checked, on probe values, to write and
/// read exactly its stored properties under their names (what the synthesized conformance does).
/// Any other model (a custom conformance that transforms values, an enum or nested `Codable`
/// property, a class) keeps the `Codable` path of ``RowEncoder`` and ``RowDecoder``.
package final class RowPlan: Sendable {
  /// How one column's property is stored in the model's memory (``RowLayout/Field``).
  package typealias Field = RowLayout.Field

  /// One column's property: where it is and how it is stored (``RowLayout/Column``).
  package typealias Column = RowLayout.Column

  package let columns: [Column]
  package let schema: ModelSchema

  /// The columns' layout, which the statement reads and binds in one call per row.
  package let layout: RowLayout

  private init(schema: ModelSchema, columns: [Column]) {
    self.schema = schema
    self.columns = columns
    self.layout = RowLayout(columns: columns, schema: schema)
  }

  // MARK: Building

  /// The plan of `Model` read and written with `schema`'s columns, or `nil` when the model needs
  /// `Codable` (see the type's documentation). Built once per model type and schema.
  package static func of<Model: PersistentModel>(_ model: Model.Type, schema: ModelSchema)
    -> RowPlan?
  {
    let plan = schema.rowPlans.object(for: ObjectIdentifier(Model.self)) {
      make(Model.self, schema: schema)
    }
    return plan.map { unsafeDowncast($0 as AnyObject, to: RowPlan.self) }
  }

  private static func make<Model: PersistentModel>(_ model: Model.Type, schema: ModelSchema)
    -> RowPlan?
  {
    // The columns must be every stored property of this very type (so that setting each column
    // initializes the whole value).
    guard schema.derivedType == ObjectIdentifier(Model.self), !(Model.self is AnyClass),
      MemoryLayout<Model>.size > 0
    else { return nil }
    var columns: [Column] = []
    for column in schema.columns {
      guard let keyPath = column.keyPath as? PartialKeyPath<Model>,
        let offset = MemoryLayout<Model>.offset(of: keyPath),
        let field = Field(column.valueType, kind: column.kind)
      else { return nil }
      columns.append(Column(offset: offset, field: field, isOptional: column.isOptional))
    }
    let plan = RowPlan(schema: schema, columns: columns)
    for variant in 0..<3 where !plan.conforms(Model.self, variant: variant) { return nil }
    return plan
  }

  /// Whether `Model`'s `Codable` conformance writes and reads a probe model's stored properties
  /// exactly as the plan does.
  private func conforms<Model: PersistentModel>(_ model: Model.Type, variant: Int) -> Bool {
    let values = schema.columns.indices.map { probeValue(column: $0, variant: variant) }
    // The probe model, built in memory the way the plan builds fetched models.
    let probe = UnsafeMutablePointer<Model>.allocate(capacity: 1)
    defer { probe.deallocate() }
    let raw = UnsafeMutableRawPointer(probe)
    for (index, column) in columns.enumerated() {
      RowPlan.write(values[index], column, at: raw + column.offset)
    }
    let model = probe.move()
    guard stored(model) == values else { return false }
    // Encoding it must produce the same values under the property names.
    let encoder = ProbeEncoder()
    guard (try? model.encode(to: encoder)) != nil, !encoder.unusual else { return false }
    for (index, column) in schema.columns.enumerated() {
      let encoded = encoder.values[column.name] ?? (column.isOptional ? .null : nil)
      guard encoded == values[index] else { return false }
    }
    guard encoder.values.count <= schema.columns.count else { return false }
    // Decoding the values must produce a model with the same stored properties.
    var byName: [String: DatabaseValue] = [:]
    for (index, column) in schema.columns.enumerated() { byName[column.name] = values[index] }
    let decoder = ProbeDecoder(values: byName)
    guard let decoded = try? Model(from: decoder), !decoder.unusual,
      decoder.requested.count == schema.columns.count
    else { return false }
    return stored(decoded) == values
  }

  /// The values a model's stored properties hold, as column values.
  private func stored<Model>(_ model: Model) -> [DatabaseValue?] {
    schema.columns.map { column in
      model[keyPath: column.keyPath].flatMap { databaseValue(for: $0, kind: column.kind) }
    }
  }

  /// A distinct value for a column in each probe variant (optionals are nil in variant 1).
  private func probeValue(column index: Int, variant: Int) -> DatabaseValue? {
    let column = columns[index]
    if column.isOptional && variant == 1 { return .null }
    let number = Int64(3 + index + 17 * variant)
    switch column.field {
    case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64:
      return .integer(number)
    case .double, .float, .date: return .real(Double(number) + 0.5)
    case .bool: return .integer((number & 1))
    case .string: return .text(" Probe \(index)-\(variant) Ä ")
    case .uuid:
      return .text(String(format: "%08X-0000-4000-8000-%012X", index, variant + 1))
    case .url: return .text("https://probe.invalid/\(index)/\(variant)")
    case .data: return .blob(Data([UInt8(index & 0xff), UInt8(variant), 0xab]))
    }
  }

  /// Initializes a property from a probe value.
  private static func write(
    _ value: DatabaseValue?, _ column: Column, at p: UnsafeMutableRawPointer
  ) {
    var integer: Int64 = 0
    var real = 0.0
    var text = ""
    var blob = Data()
    switch value {
    case .integer(let value)?: integer = value
    case .real(let value)?: real = value
    case .text(let value)?: text = value
    case .blob(let value)?: blob = value
    default: break
    }
    let isNull = value == .null
    func put<T>(_ value: @autoclosure () -> T) {
      if column.isOptional {
        p.assumingMemoryBound(to: Optional<T>.self).initialize(to: isNull ? nil : value())
      } else {
        p.assumingMemoryBound(to: T.self).initialize(to: value())
      }
    }
    switch column.field {
    case .int: put(Int(truncatingIfNeeded: integer))
    case .int8: put(Int8(truncatingIfNeeded: integer))
    case .int16: put(Int16(truncatingIfNeeded: integer))
    case .int32: put(Int32(truncatingIfNeeded: integer))
    case .int64: put(integer)
    case .uint: put(UInt(truncatingIfNeeded: integer))
    case .uint8: put(UInt8(truncatingIfNeeded: integer))
    case .uint16: put(UInt16(truncatingIfNeeded: integer))
    case .uint32: put(UInt32(truncatingIfNeeded: integer))
    case .uint64: put(UInt64(truncatingIfNeeded: integer))
    case .double: put(real)
    case .float: put(Float(real))
    case .bool: put(integer != 0)
    case .string: put(text)
    case .date: put(Date(timeIntervalSinceReferenceDate: real))
    case .uuid: put(UUID(uuidString: text) ?? UUID())
    case .url: put(URL(string: text) ?? URL(fileURLWithPath: "/"))
    case .data: put(blob)
    }
  }
}

/// The row plan of the model type a row coder used last, so the next row of that type finds it
/// without a lookup (`nil` plan: that type keeps `Codable`).
package struct LastRowPlan {
  private var key: ObjectIdentifier?
  private var plan: RowPlan?

  /// The plan of `Model` in `schema`.
  @inline(__always)
  package mutating func plan<Model: PersistentModel>(for type: Model.Type, schema: ModelSchema)
    -> RowPlan?
  {
    let key = ObjectIdentifier(type)
    if self.key != key {
      plan = RowPlan.of(type, schema: schema)
      self.key = key
    }
    return plan
  }
}
