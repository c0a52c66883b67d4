import Foundation
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
final class RowPlan: Sendable {
  /// How one column's property is stored in the model's memory (``RowLayout/Field``).
  typealias Field = RowLayout.Field

  /// One column's property: where it is and how it is stored (``RowLayout/Column``).
  typealias Column = RowLayout.Column

  let columns: [Column]
  private let schema: ModelSchema

  /// The columns' layout, which the statement reads and binds in one call per row.
  let layout: RowLayout

  private init(schema: ModelSchema, columns: [Column]) {
    self.schema = schema
    self.columns = columns
    self.layout = RowLayout(columns: columns, schema: schema)
  }

  // MARK: Building

  /// The plan of `Model` read and written with `schema`'s columns, or `nil` when the model needs
  /// `Codable` (see the type's documentation). Built once per model type and schema.
  static func of<Model: PersistentModel>(_ model: Model.Type, schema: ModelSchema) -> RowPlan? {
    schema.rowPlans.plan(for: ObjectIdentifier(Model.self)) { make(Model.self, schema: schema) }
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
    var byName: [String: SQLiteValue] = [:]
    for (index, column) in schema.columns.enumerated() { byName[column.name] = values[index] }
    let decoder = ProbeDecoder(values: byName)
    guard let decoded = try? Model(from: decoder), !decoder.unusual,
      decoder.requested.count == schema.columns.count
    else { return false }
    return stored(decoded) == values
  }

  /// The values a model's stored properties hold, as column values.
  private func stored<Model>(_ model: Model) -> [SQLiteValue?] {
    schema.columns.map { column in
      model[keyPath: column.keyPath].flatMap { sqliteValue(for: $0, kind: column.kind) }
    }
  }

  /// A distinct value for a column in each probe variant (optionals are nil in variant 1).
  private func probeValue(column index: Int, variant: Int) -> SQLiteValue? {
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
  private static func write(_ value: SQLiteValue?, _ column: Column, at p: UnsafeMutableRawPointer)
  {
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

  // MARK: Reading rows

  /// The model in the statement's current row (columns in schema order), built in `scratch`
  /// and moved out.
  @inline(__always)
  func decode<Model>(
    _ type: Model.Type, from statement: StoreStatement, in scratch: inout RowScratch
  ) throws -> Model {
    guard let memory = scratch.memory(for: Model.self) else {
      return try decodeOverAligned(Model.self, from: statement)
    }
    let model = memory.bindMemory(to: Model.self, capacity: 1)
    // On a failure `initialize` leaves the memory as it found it: uninitialized.
    try initialize(memory, from: statement)
    return model.move()
  }

  /// ``decode(_:from:in:)`` for a type aligned beyond what the scratch memory gives, in memory
  /// of its own (apart, so the common path does not look up the metadata this one uses).
  @inline(never)
  private func decodeOverAligned<Model>(_ type: Model.Type, from statement: StoreStatement)
    throws -> Model
  {
    try withUnsafeTemporaryAllocation(of: Model.self, capacity: 1) { buffer in
      let base = buffer.baseAddress.unsafelyUnwrapped
      try initialize(UnsafeMutableRawPointer(base), from: statement)
      return base.move()
    }
  }

  /// Initializes every property of the model at `base` from the statement's current row; on a
  /// failure, what was initialized is deinitialized again (``StoreStatement/readRow(_:into:)``).
  @inline(__always)
  private func initialize(_ base: UnsafeMutableRawPointer, from statement: StoreStatement) throws {
    try statement.readRow(layout, into: base)
  }

  // MARK: Binding rows

  /// Binds every column of `model` (parameter `n + 1` is column `n`).
  @inline(__always)
  func bind<Model>(_ model: Model, to statement: StoreStatement) throws {
    try withUnsafePointer(to: model) { try bind(UnsafeRawPointer($0), to: statement) }
  }

  @inline(__always)
  private func bind(_ base: UnsafeRawPointer, to statement: StoreStatement) throws {
    try statement.bindRow(layout, from: base)
  }
}

/// The row plans of one schema, by model type (`nil`: the model keeps `Codable`).
final class RowPlanCache: Sendable {
  private let plans = Mutex<[ObjectIdentifier: RowPlan?]>([:])

  /// The plan for a model type, made by `make` on first use.
  func plan(for key: ObjectIdentifier, make: () -> RowPlan?) -> RowPlan? {
    if let known = plans.withLock({ $0[key] }) { return known }
    let plan = make()
    plans.withLock { $0[key] = .some(plan) }
    return plan
  }
}

/// Thrown by the probe coders at a request a plan can't mirror.
private struct UnusualCoding: Error {}

/// The encoder of a plan's probe: records the column value each key is given.
private final class ProbeEncoder: Encoder {
  var values: [String: SQLiteValue] = [:]
  /// Whether the encoding asked for something a plan can't mirror.
  var unusual = false
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(Container<Key>(encoder: self))
  }
  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    unusual = true
    return UnsupportedEncodingContainer<AnyCodingKey>(modelName: "probe")
  }
  func singleValueContainer() -> any SingleValueEncodingContainer {
    unusual = true
    return UnsupportedEncodingContainer<AnyCodingKey>(modelName: "probe")
  }

  struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ProbeEncoder
    var codingPath: [any CodingKey] { [] }

    func record(_ value: SQLiteValue?, _ key: Key) throws {
      guard let value, encoder.values[key.stringValue] == nil else {
        encoder.unusual = true
        throw UnusualCoding()
      }
      encoder.values[key.stringValue] = value
    }
    mutating func encodeNil(forKey key: Key) throws { try record(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
      try record(.integer(value ? 1 : 0), key)
    }
    mutating func encode(_ value: String, forKey key: Key) throws { try record(.text(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try record(.real(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws {
      try record(.real(Double(value)), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
      try record(.integer(Int64(value)), key)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
      try record(.integer(Int64(value)), key)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
      try record(.integer(Int64(value)), key)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
      try record(.integer(Int64(value)), key)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
      try record(.integer(value), key)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
      try record(Int64(exactly: value).map { .integer($0) }, key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
      try record(.integer(Int64(value)), key)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
      try record(.integer(Int64(value)), key)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
      try record(.integer(Int64(value)), key)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
      try record(Int64(exactly: value).map { .integer($0) }, key)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      switch value {
      case let date as Date: try record(.real(date.timeIntervalSinceReferenceDate), key)
      case let uuid as UUID: try record(.text(uuid.uuidString), key)
      case let url as URL: try record(.text(url.absoluteString), key)
      case let data as Data: try record(.blob(data), key)
      default: try record(nil, key)
      }
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      encoder.unusual = true
      return KeyedEncodingContainer(UnsupportedEncodingContainer<NestedKey>(modelName: "probe"))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      encoder.unusual = true
      return UnsupportedEncodingContainer<Key>(modelName: "probe")
    }
    mutating func superEncoder() -> any Encoder {
      encoder.unusual = true
      return UnsupportedEncoder(modelName: "probe")
    }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
      encoder.unusual = true
      return UnsupportedEncoder(modelName: "probe")
    }
  }
}

/// The decoder of a plan's probe: serves column values by key and records the keys asked for.
private final class ProbeDecoder: Decoder {
  let values: [String: SQLiteValue]
  var requested: Set<String> = []
  /// Whether the decoding asked for something a plan can't mirror.
  var unusual = false
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(values: [String: SQLiteValue]) { self.values = values }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(Container<Key>(decoder: self))
  }
  func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw refuse() }
  func singleValueContainer() throws -> any SingleValueDecodingContainer { throw refuse() }

  func refuse() -> UnusualCoding {
    unusual = true
    return UnusualCoding()
  }

  struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { decoder.values.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.values[key.stringValue] != nil }
    func value(_ key: Key) throws -> SQLiteValue {
      guard let value = decoder.values[key.stringValue] else { throw decoder.refuse() }
      decoder.requested.insert(key.stringValue)
      return value
    }
    func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
      guard case .integer(let value) = try self.value(key), let exact = T(exactly: value) else {
        throw decoder.refuse()
      }
      return exact
    }
    func real(_ key: Key) throws -> Double {
      guard case .real(let value) = try self.value(key) else { throw decoder.refuse() }
      return value
    }
    func text(_ key: Key) throws -> String {
      guard case .text(let value) = try self.value(key) else { throw decoder.refuse() }
      return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
      try integer(key) as Int64 != 0
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try text(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try real(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try real(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      let value: Any?
      switch T.self {
      case is Date.Type: value = Date(timeIntervalSinceReferenceDate: try real(key))
      case is UUID.Type: value = UUID(uuidString: try text(key))
      case is URL.Type: value = URL(string: try text(key))
      case is Data.Type:
        guard case .blob(let data) = try self.value(key) else { throw decoder.refuse() }
        value = data
      default: value = nil
      }
      guard let typed = value as? T else { throw decoder.refuse() }
      return typed
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
      throws -> KeyedDecodingContainer<NestedKey>
    { throw decoder.refuse() }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      throw decoder.refuse()
    }
    func superDecoder() throws -> any Decoder { throw decoder.refuse() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw decoder.refuse() }
  }
}

/// Memory a row plan builds one model in, reused row after row by one decoder: a temporary
/// allocation per row (`withUnsafeTemporaryAllocation`) looks a generic type's metadata up every
/// time. The owner calls ``deallocate()``.
struct RowScratch {
  private var memory: UnsafeMutableRawPointer?
  private var byteCount = 0

  /// Memory for one `Model`, or `nil` for a type aligned beyond 16 bytes.
  @inline(__always)
  mutating func memory<Model>(for type: Model.Type) -> UnsafeMutableRawPointer? {
    guard MemoryLayout<Model>.alignment <= 16 else { return nil }
    let size = MemoryLayout<Model>.size
    if let memory, size <= byteCount { return memory }
    memory?.deallocate()
    byteCount = max(size, 16)
    let grown = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
    memory = grown
    return grown
  }

  /// Frees the memory (nothing may be initialized in it).
  func deallocate() { memory?.deallocate() }
}

/// The row plan of the model type a row coder used last, so the next row of that type finds it
/// without a lookup (`nil` plan: that type keeps `Codable`).
struct LastRowPlan {
  private var key: ObjectIdentifier?
  private var plan: RowPlan?

  /// The plan of `Model` in `schema`.
  @inline(__always)
  mutating func plan<Model: PersistentModel>(for type: Model.Type, schema: ModelSchema)
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
