#if canImport(CLibPQ)
  import Foundation
  internal import CLibPQ

  /// Rows for `COPY … FROM STDIN (FORMAT binary)`, in PostgreSQL's binary copy format: the
  /// signature `PGCOPY\n\377\r\n\0`, a 32-bit flags word and header extension length (both 0),
  /// then per row a 16-bit field count and per field a 32-bit length (-1 for NULL) and the
  /// value's binary form (what a binary parameter sends: big-endian integers, a `double`'s bit
  /// pattern, text's UTF-8 bytes, `bytea`'s bytes, a boolean's one byte), and the trailer -1.
  struct PostgresCopyRows {
    /// The stream so far (without the trailer).
    private(set) var bytes: [UInt8]
    /// The number of rows appended.
    private(set) var count = 0

    /// An empty stream with room for about `capacity` bytes.
    init(capacity: Int = 65_536) {
      bytes = []
      bytes.reserveCapacity(capacity)
      bytes.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])
      append(UInt32(0))
      append(UInt32(0))
    }

    /// Starts a row of `fields` fields; append exactly that many values after it.
    mutating func beginRow(fields: Int) {
      append(Int16(truncatingIfNeeded: fields))
      count += 1
    }

    /// Appends a NULL field.
    mutating func appendNull() { append(Int32(-1)) }

    /// Appends a field holding `value`'s binary form (these bytes).
    mutating func appendField(_ value: UnsafeRawBufferPointer) {
      append(Int32(truncatingIfNeeded: value.count))
      bytes.append(contentsOf: value)
    }

    /// Appends a `bigint` field.
    mutating func appendField(_ value: Int64) {
      append(Int32(8))
      append(value)
    }

    private mutating func append<Value: FixedWidthInteger>(_ value: Value) {
      withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The whole stream, with its trailer.
    var finished: [UInt8] {
      var all = bytes
      all.append(0xFF)
      all.append(0xFF)
      return all
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
    func copyIn(_ sql: String, rows: PostgresCopyRows) throws -> Int {
      let handle = try session.liveHandle(sql: sql)
      let started = PQexec(handle, PostgresPlaceholders.fittingIdentifiers(sql))
      guard PQresultStatus(started) == PGRES_COPY_IN else {
        let error = session.error(started, sql: sql, committing: false)
        PQclear(started)
        throw error
      }
      PQclear(started)
      let data = rows.finished
      var sent = true
      data.withUnsafeBytes { raw in
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
