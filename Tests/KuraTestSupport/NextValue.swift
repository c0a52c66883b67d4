import Foundation
import Testing

/// Waits for the next element of a stream, failing after a bound.
package func nextValue<Element: Sendable>(of stream: AsyncStream<Element>, within seconds: Double)
  async throws -> Element?
{
  try await withThrowingTaskGroup(of: Element?.self) { group in
    group.addTask {
      var iterator = stream.makeAsyncIterator()
      return await iterator.next()
    }
    group.addTask {
      try await Task.sleep(for: .seconds(seconds))
      throw CocoaError(.executableLoad)
    }
    defer { group.cancelAll() }
    return try await group.next() ?? nil
  }
}
