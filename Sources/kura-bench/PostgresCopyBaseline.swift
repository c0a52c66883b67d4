#if canImport(CLibPQ)
  import CLibPQ
  import Foundation

  // The bulk insert's COPY baseline: what a C programmer writes to load rows fast with libpq —
  // one `COPY raw (…) FROM STDIN (FORMAT binary)`, the rows encoded by hand in PostgreSQL's
  // binary copy format into one buffer, sent in 1 MiB pieces.

  extension RawPostgres {
    /// The copy of every column of `raw`, in binary.
    static let copySQL =
      "COPY raw (id, name, score, \"isFavorite\", \"createdAt\", note) FROM STDIN (FORMAT binary)"

    /// Copies `trips` into `raw` with one `COPY … FROM STDIN (FORMAT binary)` (the caller
    /// opens and commits the transaction, as for the upserts).
    func copy(_ trips: [BenchTrip]) throws {
      var buffer: [UInt8] = []
      buffer.reserveCapacity(19 + trips.count * 80)
      func append<Value: FixedWidthInteger>(_ value: Value) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
      }
      func append(text: String) {
        var text = text
        text.withUTF8 { bytes in
          append(Int32(bytes.count))
          buffer.append(contentsOf: bytes)
        }
      }
      // The signature, flags and header extension length.
      buffer.append(contentsOf: [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00])
      append(UInt32(0))
      append(UInt32(0))
      for trip in trips {
        append(Int16(6))
        append(Int32(8))
        append(Int64(trip.id))
        append(text: trip.name)
        append(Int32(8))
        append(trip.score.bitPattern)
        append(Int32(1))
        append(UInt8(trip.isFavorite ? 1 : 0))
        append(Int32(8))
        append(trip.createdAt.timeIntervalSinceReferenceDate.bitPattern)
        if let note = trip.note { append(text: note) } else { append(Int32(-1)) }
      }
      append(Int16(-1))
      let started = PQexec(handle, Self.copySQL)
      guard PQresultStatus(started) == PGRES_COPY_IN else {
        defer { PQclear(started) }
        throw copyFailure(started)
      }
      PQclear(started)
      try buffer.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
          let piece = min(raw.count - offset, 1 << 20)
          guard
            PQputCopyData(handle, (base + offset).assumingMemoryBound(to: CChar.self), Int32(piece))
              == 1
          else { throw copyFailure(nil) }
          offset += piece
        }
      }
      guard PQputCopyEnd(handle, nil) == 1 else { throw copyFailure(nil) }
      var failed: PostgresBenchmarkError?
      while let result = PQgetResult(handle) {
        if PQresultStatus(result) != PGRES_COMMAND_OK, failed == nil {
          failed = copyFailure(result)
        }
        PQclear(result)
      }
      if let failed { throw failed }
    }

    /// The error for a failed copy, with libpq's message.
    private func copyFailure(_ result: OpaquePointer?) -> PostgresBenchmarkError {
      let message =
        result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) }
        ?? String(cString: PQerrorMessage(handle))
      return PostgresBenchmarkError(
        description:
          "`\(Self.copySQL)` failed on \(label): "
          + message.trimmingCharacters(in: .whitespacesAndNewlines))
    }
  }
#endif
