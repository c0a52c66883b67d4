import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// Binding values to a statement's parameters: each converted to the type the server chose
  /// for the parameter, and kept in the binary (or text) form libpq sends. A ``DatabaseValue``,
  /// a convertible value or a list of values is bound as ``DatabaseValueBinding`` writes it.
  extension PostgresStatement: DatabaseValueBinding {
    /// The number of parameters the SQL declares.
    ///
    /// For example: `statement.parameterCount` is `2` for `SELECT * FROM t WHERE a = ? AND b = ?`.
    package var parameterCount: Int { parameterTypes.count }

    /// The error for a value or parameter this statement can't take (`message` says which and
    /// why), naming the server and the SQL.
    private func refusal(_ message: String) -> PostgresError {
      PostgresError(code: .other, message: message, server: session.server, sql: sql)
    }

    /// The slot (from 0) of parameter `index` (from 1).
    @inline(__always)
    private func slot(_ index: Int) throws -> Int {
      guard index >= 1 && index <= parameterTypes.count else {
        throw refusal(
          "parameter \(index) is out of range: the statement has \(parameterTypes.count)"
            + " parameter(s)")
      }
      return index - 1
    }

    /// Stores `count` bytes written by `write` as the value of `slot`, in `format` (0 text, with
    /// a NUL added; 1 binary).
    @inline(__always)
    private func store(
      _ slot: Int, count: Int, format: Int32, _ write: (UnsafeMutableRawPointer) -> Void
    ) throws {
      let needed = count + 1
      var buffer = buffers[slot]
      if capacities[slot] < needed || buffer == nil {
        let capacity = max(needed, 32)
        guard let grown = realloc(buffer, capacity) else {
          throw refusal(
            "out of memory for a \(count)-byte value of parameter \(slot + 1); bind a smaller"
              + " value")
        }
        buffer = grown
        buffers[slot] = grown
        capacities[slot] = capacity
      }
      guard let buffer else { return }
      write(buffer)
      buffer.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
      values[slot] = UnsafePointer(buffer.assumingMemoryBound(to: CChar.self))
      lengths[slot] = Int32(clamping: count)
      formats[slot] = format
    }

    @inline(__always)
    private func storeBinary<Value: FixedWidthInteger>(_ slot: Int, _ value: Value) throws {
      try store(slot, count: MemoryLayout<Value>.size, format: 1) {
        $0.storeBytes(of: value.bigEndian, as: Value.self)
      }
    }

    private func storeBytes(_ slot: Int, _ bytes: UnsafeRawBufferPointer, format: Int32) throws {
      try store(slot, count: bytes.count, format: format) { buffer in
        if let base = bytes.baseAddress, bytes.count > 0 {
          buffer.copyMemory(from: base, byteCount: bytes.count)
        }
      }
    }

    /// Text the server reads with the parameter type's own input (text format).
    private func storeText(_ slot: Int, _ text: String, index: Int) throws {
      var text = text
      try text.withUTF8 { bytes in
        if bytes.contains(0) {
          throw refusal(
            "the text bound to parameter \(index) contains a NUL character, which PostgreSQL"
              + " can't store")
        }
        try storeBytes(slot, UnsafeRawBufferPointer(bytes), format: 0)
      }
    }

    /// Binds an integer to parameter `index` (from 1), converted to the parameter's type.
    ///
    /// For example: `try statement.bind(Int64(2800), at: 2)`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    package func bind(_ value: Int64, at index: Int) throws {
      let slot = try slot(index)
      switch parameterTypes[slot] {
      case PostgresType.int8: try storeBinary(slot, value)
      case PostgresType.int4 where Int32(exactly: value) != nil:
        try storeBinary(slot, Int32(truncatingIfNeeded: value))
      case PostgresType.int2 where Int16(exactly: value) != nil:
        try storeBinary(slot, Int16(truncatingIfNeeded: value))
      case PostgresType.float8: try storeBinary(slot, Double(value).bitPattern)
      case PostgresType.float4: try storeBinary(slot, Float(value).bitPattern)
      case PostgresType.bool: try storeBinary(slot, UInt8(value != 0 ? 1 : 0))
      default:
        // Any other type (and an integer too large for a smaller one, which the server then
        // refuses) reads the decimal text.
        try storeText(slot, String(value), index: index)
      }
    }

    /// Binds an integer to parameter `index` (from 1), converted to the parameter's type.
    ///
    /// For example: `try statement.bind(3, at: 1)`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    package func bind(_ value: Int, at index: Int) throws {
      try bind(Int64(value), at: index)
    }

    /// Binds a floating-point number to parameter `index` (from 1): bit for bit (NaN, infinities
    /// and `-0.0` included) to a `double precision` parameter; to an integer parameter it must
    /// have no fraction.
    ///
    /// For example: `try statement.bind(2.5, at: 3)`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    package func bind(_ value: Double, at index: Int) throws {
      let slot = try slot(index)
      switch parameterTypes[slot] {
      case PostgresType.float8: try storeBinary(slot, value.bitPattern)
      case PostgresType.float4: try storeBinary(slot, Float(value).bitPattern)
      case PostgresType.int8 where Int64(exactly: value) != nil:
        try storeBinary(slot, Int64(value))
      case PostgresType.int4 where Int32(exactly: value) != nil:
        try storeBinary(slot, Int32(value))
      case PostgresType.int2 where Int16(exactly: value) != nil:
        try storeBinary(slot, Int16(value))
      default:
        try storeText(slot, PostgresType.text(of: value), index: index)
      }
    }

    /// Binds a `Double` so that it reads back bit for bit with ``exactDouble(at:)`` (binary
    /// `double precision` is exact already, so this is ``bind(_:at:)-(Double,_)``).
    package func bindExact(_ value: Double, at index: Int) throws {
      try bind(value, at: index)
    }

    /// Binds text to parameter `index` (from 1): as text to a text, `varchar`, `json` or
    /// `bytea` parameter, and as the text the server reads with the type's own input for any
    /// other type (`'2024-05-01'` for a `date`, a UUID string for a `uuid`).
    ///
    /// For example: `try statement.bind("高速代金", at: 2)`.
    ///
    /// - Parameters:
    ///   - value: The value; the empty string stays empty (not NULL).
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index, or text with a NUL character bound to a
    ///   parameter that is not text.
    package func bind(_ value: String, at index: Int) throws {
      let slot = try slot(index)
      if PostgresType.takesRawText(parameterTypes[slot]) {
        var value = value
        try value.withUTF8 { try storeBytes(slot, UnsafeRawBufferPointer($0), format: 1) }
      } else {
        try storeText(slot, value, index: index)
      }
    }

    /// Binds a UUID to parameter `index` (from 1): its 16 bytes to a `uuid` parameter (such as
    /// `CAST(? AS uuid)`), its text (upper case) to any other.
    ///
    /// For example: `try statement.bind(uuid: UUID(), at: 5)`.
    ///
    /// - Parameters:
    ///   - uuid: The UUID.
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    package func bind(uuid: UUID, at index: Int) throws {
      let slot = try slot(index)
      guard parameterTypes[slot] == PostgresType.uuid else {
        try bind(uuid.uuidString, at: index)
        return
      }
      try withUnsafeBytes(of: uuid.uuid) { try storeBytes(slot, $0, format: 1) }
    }

    /// Binds bytes without copying them into a `Data` first.
    package func bind(bytes: [UInt8], at index: Int) throws {
      try bytes.withUnsafeBytes { try bind(raw: $0, at: index) }
    }

    /// Binds bytes to parameter `index` (from 1) of type `bytea` (or text, which must then be
    /// valid UTF-8).
    ///
    /// For example: `try statement.bind(Data([0, 1, 0]), at: 4)`.
    ///
    /// - Parameters:
    ///   - value: The bytes; empty data stays empty (not NULL).
    ///   - index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index or a parameter of another type.
    package func bind(_ value: Data, at index: Int) throws {
      try value.withUnsafeBytes { try bind(raw: $0, at: index) }
    }

    private func bind(raw bytes: UnsafeRawBufferPointer, at index: Int) throws {
      let slot = try slot(index)
      let type = parameterTypes[slot]
      guard PostgresType.takesRawText(type) else {
        throw refusal(
          "can't bind bytes to parameter \(index), of type \(PostgresType.name(of: type));"
            + " bind them to a bytea parameter")
      }
      try storeBytes(slot, bytes, format: 1)
    }

    /// Binds NULL to parameter `index` (from 1).
    ///
    /// For example: `try statement.bindNull(at: 5)`.
    ///
    /// - Parameter index: The parameter number, from 1.
    /// - Throws: ``PostgresError`` for a bad index.
    package func bindNull(at index: Int) throws {
      values[try slot(index)] = nil
    }

    /// Appends the bound values as one row of a binary `COPY`: `false`, appending nothing,
    /// when a value was bound in text form (a value the parameter's type reads from its text,
    /// such as a fraction bound to a `bigint`), which a binary copy can't carry.
    package func appendBoundValues(to rows: PostgresCopyRows) -> Bool {
      values.withUnsafeBufferPointer { values in
        formats.withUnsafeBufferPointer { formats in
          lengths.withUnsafeBufferPointer { lengths in
            var size = 2
            for slot in values.indices {
              guard values[slot] != nil else {
                size += 4
                continue
              }
              guard formats[slot] != 0 else { return false }
              size += 4 + Int(lengths[slot])
            }
            let row = rows.reserveRow(bytes: size)
            PostgresCopyRows.store(Int16(truncatingIfNeeded: values.count), at: row, offset: 0)
            var offset = 2
            for slot in values.indices {
              guard let value = values[slot] else {
                PostgresCopyRows.store(Int32(-1), at: row, offset: offset)
                offset += 4
                continue
              }
              let length = Int(lengths[slot])
              PostgresCopyRows.store(Int32(truncatingIfNeeded: length), at: row, offset: offset)
              offset += 4
              (row + offset).copyMemory(from: value, byteCount: length)
              offset += length
            }
            rows.commitRow(bytes: size)
            return true
          }
        }
      }
    }
  }
#endif
