import Foundation
import Testing

@testable import Kura

/// Collects what an asynchronous sequence yields, so a test can wait for the next element with a
/// bound (the bound limits the wait for the event; it does not stand in for it).
package actor Inbox<Element: Sendable> {
  private var buffer: [Element] = []
  private var finished = false
  private var waiter: CheckedContinuation<Void, Never>?
  private var waitNumber = 0

  package init(_ stream: AsyncStream<Element>) {
    Task { [weak self] in
      for await element in stream {
        guard let self else { return }
        await self.push(element)
      }
      await self?.finish()
    }
  }

  /// What a throwing sequence threw when it ended (`nil` while it runs or when it ended without).
  package private(set) var failure: (any Error)?

  package init(_ stream: AsyncThrowingStream<Element, any Error>) {
    Task { [weak self] in
      do {
        for try await element in stream {
          guard let self else { return }
          await self.push(element)
        }
        await self?.finish()
      } catch {
        await self?.finish(throwing: error)
      }
    }
  }

  private func finish(throwing error: any Error) {
    failure = error
    finish()
  }

  private func push(_ element: Element) {
    buffer.append(element)
    resume()
  }

  private func finish() {
    finished = true
    resume()
  }

  private func resume() {
    waiter?.resume()
    waiter = nil
  }

  private func timeOut(_ number: Int) {
    if number == waitNumber { resume() }
  }

  /// The next element, or `nil` when the sequence ended or nothing came within `bound`.
  package func next(within bound: Duration = .seconds(10)) async -> Element? {
    if buffer.isEmpty && !finished {
      waitNumber += 1
      let number = waitNumber
      let timer = Task { [weak self] in
        try? await Task.sleep(for: bound)
        await self?.timeOut(number)
      }
      await withCheckedContinuation { waiter = $0 }
      waitNumber += 1
      timer.cancel()
    }
    return buffer.isEmpty ? nil : buffer.removeFirst()
  }
}

/// Runs the test helper (`kura-testhelper <arguments>`) to completion; returns its output.
@discardableResult
package func runHelper(_ arguments: [String], folder: TemporaryDirectory) throws -> String {
  let result = try run(
    try executable("kura-testhelper"), arguments, environment: folder.environment)
  try #require(result.status == 0, "kura-testhelper failed: \(result.stderr)")
  return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Runs `body`, failing (and cancelling it, which ends its streams' waits) when it takes longer
/// than `seconds`: a change that never comes fails the test instead of hanging it.
package func withinSeconds(
  _ seconds: Double, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: @escaping @Sendable () async throws -> Void
) async throws {
  try await withThrowingTaskGroup(of: Bool.self) { group in
    group.addTask {
      try await body()
      return true
    }
    group.addTask {
      try await Task.sleep(for: .seconds(seconds))
      return false
    }
    defer { group.cancelAll() }
    if try await group.next() == false {
      Issue.record("not done within \(seconds) s", sourceLocation: sourceLocation)
    }
  }
}

/// Reads a stream until an element satisfies `predicate`, failing after a bound; returns that
/// element, or `nil` when the stream ended first.
package func firstValue<Element: Sendable>(
  of stream: AsyncStream<Element>, within seconds: Double,
  where predicate: @escaping @Sendable (Element) -> Bool
) async throws -> Element? {
  try await withThrowingTaskGroup(of: Element?.self) { group in
    group.addTask {
      for await element in stream where predicate(element) { return element }
      return nil
    }
    group.addTask {
      try await Task.sleep(for: .seconds(seconds))
      throw CocoaError(.executableLoad)
    }
    defer { group.cancelAll() }
    return try await group.next() ?? nil
  }
}
