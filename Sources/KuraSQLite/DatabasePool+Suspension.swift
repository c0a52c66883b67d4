import Foundation
import KuraBase

/// The writer connection of a pool, closed while the process is suspended and opened again by the
/// next write.
// Safety: `connection` is only read and written with the pool's `writerLock` held.
package final class WriterSlot: @unchecked Sendable {
  package var connection: Connection?

  package init(_ connection: Connection) { self.connection = connection }
}

extension DatabasePool: SuspendableConnections {
  /// The writer connection, opened again when a suspension closed it. Call with `writerLock` held.
  package func openWriter(_ slot: WriterSlot) throws -> Connection {
    if let connection = slot.connection { return connection }
    // Reopened as the pool first opened it; a suspension never turns a store writable.
    let connection = try Connection(
      path: path, mode: isReadOnly ? .inspect : .readWrite(create: true))
    slot.connection = connection
    signal.attach(connection)
    return connection
  }
}
