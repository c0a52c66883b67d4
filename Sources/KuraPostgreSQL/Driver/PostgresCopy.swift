import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// Rows for `COPY … FROM STDIN (FORMAT binary)`, in PostgreSQL's binary copy format: the
  /// signature `PGCOPY\n\377\r\n\0`, a 32-bit flags word and header extension length (both 0),
  /// then per row a 16-bit field count and per field a 32-bit length (-1 for NULL) and the
  /// value's binary form (what a binary parameter sends: big-endian integers, a `double`'s bit
  /// pattern, text's UTF-8 bytes, `bytea`'s bytes, a boolean's one byte), and the trailer -1.
  ///
  /// The stream is written into memory it owns, a row at a time with plain stores: a row is
  /// measured first (``reserveRow(bytes:)``), so each value costs a copy and no capacity check
  /// of its own.
  package final class PostgresCopyRows {
    /// The stream's memory: `byteCount` bytes written of `capacity`.
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// The bytes written so far (without the trailer).
    package private(set) var byteCount = 0

    /// The signature, flags and header extension length.
    private static let header: [UInt8] = [
      0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
    ]

    /// An empty stream with room for about `capacity` bytes.
    package init(capacity: Int = 65_536) {
      self.capacity = max(capacity, 64)
      base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
      Self.header.withUnsafeBytes { header in
        base.copyMemory(from: header.baseAddress.unsafelyUnwrapped, byteCount: header.count)
      }
      byteCount = Self.header.count
    }

    deinit { base.deallocate() }

    /// Makes room for a row of `bytes` bytes (its field count, each field's length and value)
    /// and returns where it starts; the caller writes exactly that many bytes there, then calls
    /// ``commitRow(bytes:)``.
    @inline(__always)
    package func reserveRow(bytes: Int) -> UnsafeMutableRawPointer {
      // Room for the trailer too, so that finishing never grows the memory.
      if byteCount + bytes + 2 > capacity { grow(toHold: byteCount + bytes + 2) }
      return base + byteCount
    }

    /// Counts the row of `bytes` bytes just written where ``reserveRow(bytes:)`` said.
    @inline(__always)
    package func commitRow(bytes: Int) { byteCount += bytes }

    private func grow(toHold needed: Int) {
      var grown = capacity
      while grown < needed { grown *= 2 }
      let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
      larger.copyMemory(from: base, byteCount: byteCount)
      base.deallocate()
      base = larger
      capacity = grown
    }

    /// Writes `value` big-endian at `offset` bytes from `pointer`.
    @inline(__always)
    package static func store<Value: FixedWidthInteger>(
      _ value: Value, at pointer: UnsafeMutableRawPointer, offset: Int
    ) {
      pointer.storeBytes(of: value.bigEndian, toByteOffset: offset, as: Value.self)
    }

    /// Calls `body` with the whole stream, its trailer included.
    package func withFinishedBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result)
      rethrows
      -> Result
    {
      if byteCount + 2 > capacity { grow(toHold: byteCount + 2) }
      Self.store(Int16(-1), at: base, offset: byteCount)
      return try body(UnsafeRawBufferPointer(start: base, count: byteCount + 2))
    }
  }

  extension PostgresConnection {
    /// Runs `sql` — statements ending in one `COPY … FROM STDIN (FORMAT binary)` — and sends
    /// `rows` as the copy's data, in pieces of at most 1 MiB (`PQputCopyData`, `PQputCopyEnd`,
    /// then `PQgetResult` until the command's outcome). Returns the number of rows copied.
    ///
    /// A failure — the server refusing a value, the connection lost while sending — is a
    /// ``PostgresError`` like any statement's (``PostgresError/Kind/connectionLost`` for a lost
    /// connection; inside a transaction, which is then aborted).
    package func copyIn(_ sql: String, rows: PostgresCopyRows) throws -> Int {
      let handle = try session.liveHandle(sql: sql)
      let started = PQexec(handle, PostgresPlaceholders.fittingIdentifiers(sql))
      guard PQresultStatus(started) == PGRES_COPY_IN else {
        let error = session.error(started, sql: sql, committing: false)
        PQclear(started)
        throw error
      }
      PQclear(started)
      var sent = true
      rows.withFinishedBytes { raw in
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
          let piece = min(raw.count - offset, 1 << 20)
          let pointer = (base + offset).assumingMemoryBound(to: CChar.self)
          guard PQputCopyData(handle, pointer, Int32(piece)) == 1 else {
            sent = false
            return
          }
          offset += piece
        }
      }
      // Ending the copy with a message makes the server fail it (nothing is copied).
      let ended =
        sent
        ? PQputCopyEnd(handle, nil) : PQputCopyEnd(handle, "Kura could not send every row")
      var failure: PostgresError?
      var copied = 0
      // The copy's result, then the end of the query (bounded: a connection that keeps
      // answering "copy in" after its end was sent is broken).
      for _ in 0..<8 {
        guard let result = PQgetResult(handle) else { break }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK:
          session.recordChanges(result)
          if let tuples = PQcmdTuples(result) { copied = Int(strtol(tuples, nil, 10)) }
        case PGRES_COPY_IN:
          if failure == nil {
            failure = PostgresError(
              code: .connectionLost,
              message: "the server still expects copy data after its end was sent",
              server: session.server, sql: sql)
          }
          session.markBroken()
        default:
          if failure == nil { failure = session.error(result, sql: sql, committing: false) }
        }
        PQclear(result)
      }
      if let failure { throw failure }
      if !sent || ended != 1 {
        throw session.error(nil, sql: sql, committing: false)
      }
      return copied
    }
  }
#endif
