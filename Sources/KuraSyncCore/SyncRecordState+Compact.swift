import Foundation
import KuraBase
import KuraStore

/// The compact form of an id's registers (each property's value and stamp) that the `registers`
/// BLOB of its `kura_sync_records` row keeps: one row per id, read and written in one step by
/// a save, instead of a row per property in a table of its own (`kura_sync_registers`, which
/// earlier versions wrote and ``SyncLocalStore/foldRegisters(_:)`` folds in).
///
/// The form: a version byte (1), the number of registers, then each register in property
/// order: the property, the value (as in ``SyncChange``'s compact form), a byte (`1`: the
/// stamp of the register before, `0`: a stamp follows) and the stamp's wall time, counter and
/// replica's 16 bytes when it follows.
extension SyncRecordState {
  /// The version byte that starts the compact form.
  private static let compactVersion: UInt8 = 1

  /// The compact form of `registers`, given in property order.
  package static func compactRegisters(_ registers: [(property: String, register: Register)])
    -> [UInt8]
  {
    var writer = SyncChange.CompactWriter()
    writer.bytes.reserveCapacity(8 + registers.count * 32)
    writer.bytes.append(compactVersion)
    writer.varint(UInt64(registers.count))
    var previous: SyncStamp?
    for (property, register) in registers {
      writer.text(property)
      writer.value(register.value)
      if previous == register.stamp {
        writer.bytes.append(1)
        continue
      }
      writer.bytes.append(0)
      writer.varint(register.stamp.wall)
      writer.varint(UInt64(register.stamp.counter))
      withUnsafeBytes(of: register.stamp.replica.uuid) { writer.bytes.append(contentsOf: $0) }
      previous = register.stamp
    }
    return writer.bytes
  }

  /// The registers of a compact form in property order, or `nil` when `bytes` is not one
  /// (damaged or truncated).
  package static func registers(compact bytes: UnsafeRawBufferPointer)
    -> [(property: String, register: Register)]?
  {
    var reader = SyncChange.CompactReader(bytes: bytes)
    guard reader.byte() == compactVersion, let count = reader.varint(),
      count <= UInt64(bytes.count)
    else { return nil }
    var registers: [(property: String, register: Register)] = []
    registers.reserveCapacity(Int(count))
    var previous: SyncStamp?
    for _ in 0..<count {
      guard let property = reader.text(), !property.isEmpty, let value = reader.value(),
        let same = reader.byte(), same <= 1
      else { return nil }
      let stamp: SyncStamp
      if same == 1 {
        guard let previous else { return nil }
        stamp = previous
      } else {
        guard let full = reader.stamp() else { return nil }
        stamp = full
      }
      registers.append((property, Register(value: value, stamp: stamp)))
      previous = stamp
    }
    return reader.isAtEnd ? registers : nil
  }

  /// The registers of a compact form read from a `registers` column (`nil` is none), in
  /// property order.
  ///
  /// - Throws: ``SyncError`` (`damagedOutbox`) naming the id when the bytes are not the form.
  package static func registers(stored: Data?, model: String, id: String) throws
    -> [(property: String, register: Register)]
  {
    guard let stored else { return [] }
    guard let registers = stored.withUnsafeBytes({ Self.registers(compact: $0) }) else {
      throw SyncError(
        .damagedOutbox,
        message:
          "Can't read the sync state of `\(model)` `\(id)`: its registers in kura_sync_records "
          + "are damaged (not the form Kura writes). Nothing was changed; restore the store "
          + "from a backup, or report it.")
    }
    return registers
  }
}
