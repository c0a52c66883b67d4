import Dispatch
import Foundation
import Kura
import KuraCLI
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import Observation
import Synchronization

/// `wishlist recent [--limit n] [--watch]`: the newest trips first, from a live query.
let recentCommand = Command(
  name: "recent",
  abstract: "Lists the trips added last, newest first.",
  discussion:
    "With --watch it keeps running and prints each trip added afterwards, by this or any other "
    + "process, until interrupted; with --json as well, one JSON object per trip and line.",
  options: [
    Option("limit", help: "How many trips (10 by default).", valueName: "n")
  ] + WishlistStore.options,
  flags: [Flag("watch", help: "Keep printing trips as they are added.")],
  supportsJSON: true,
  run: { invocation in
    let limit = try invocation.option("limit", in: 1...) ?? 10
    let descriptor = FetchDescriptor<Trip>(
      sortBy: [SortDescriptor(\.createdAt, order: .reverse)], fetchLimit: limit)
    guard invocation.flag("watch") else {
      // Without a store yet there are no trips (and no store is created).
      let trips = try WishlistStore.readingContext(invocation)?.fetch(descriptor) ?? []
      if invocation.json { return try invocation.printJSON(trips) }
      if trips.isEmpty { print("No trips yet. Add one with `wishlist trip add <name>`.") }
      for trip in trips { print(WishlistStore.line(trip)) }
      return
    }
    // Watching waits for trips to be added, so it opens (and, the first time, creates) the store.
    let query = try LiveQuery(descriptor, in: try WishlistStore.container(invocation))
    let updates = query.changes
    let json = invocation.json
    Task {
      var shown = Set<Trip.ID>()
      var first = true
      for await trips in updates {
        if first && trips.isEmpty && !json {
          print("No trips yet; waiting for trips to be added.")
        }
        // The first listing is newest first; later additions print in the order they came.
        for trip in first ? trips : trips.reversed() where !shown.contains(trip.id) {
          // With --json, one JSON object per line.
          let line = json ? ((try? compactJSON(trip)) ?? "") : WishlistStore.line(trip)
          print((first || json ? "" : "+ ") + line)
          shown.insert(trip.id)
        }
        if first && !json { print("Watching for new trips (interrupt to stop).") }
        first = false
        fflush(nil)
      }
    }
    reportReachability(of: query, store: try WishlistStore.location(invocation).name)
    withExtendedLifetime(query) { dispatchMain() }
  })

/// While watching, says on standard error when the query's fetch starts failing (the store is
/// unreachable: a PostgreSQL server down, a file gone) and when it works again, as
/// ``LiveQuery/error`` reports it; the listing goes on from where it was.
private func reportReachability(of query: LiveQuery<Trip>, store: String) {
  let report = ReachabilityReport(query: query, store: store)
  report.observe()
  // Observation calls `onChange` before the change is stored, from the thread that stores it:
  // the read it schedules can still see the old value and miss a change. A look each second
  // catches what it missed.
  let timer = DispatchSource.makeTimerSource(queue: .main)
  timer.schedule(deadline: .now() + 1, repeating: 1)
  // The handler holds the timer, which keeps both for as long as the watch runs.
  timer.setEventHandler {
    withExtendedLifetime(timer) { report.report() }
  }
  timer.resume()
}

/// What `reportReachability` last said: whether the store was unreachable.
private final class ReachabilityReport: Sendable {
  let query: LiveQuery<Trip>
  let store: String
  let unreachable = Mutex(false)

  init(query: LiveQuery<Trip>, store: String) {
    self.query = query
    self.store = store
  }

  /// Reports ``LiveQuery/error`` now and again at each change.
  func observe() {
    withObservationTracking {
      _ = query.error
    } onChange: {
      // Called before the change is stored: read it after, on the main queue.
      DispatchQueue.main.async { self.observe() }
    }
    report()
  }

  /// Says whether the store became unreachable, or reachable again, since the last report.
  func report() {
    let error = query.error
    let wasUnreachable = unreachable.withLock { state in
      defer { state = error != nil }
      return state
    }
    if let error, !wasUnreachable {
      CommandLineTool.printError(
        "wishlist: warning: can't read the store `\(visible(store))` (still watching; trips added"
          + " meanwhile show once it can be read again): \(visibleLines("\(error)"))")
    } else if error == nil && wasUnreachable {
      CommandLineTool.printError("wishlist: the store `\(visible(store))` can be read again.")
    }
  }
}

/// A value as JSON on one line (for `--watch --json`: one object per line).
func compactJSON<Value: Encodable>(_ value: Value) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  encoder.dateEncodingStrategy = .iso8601
  return String(decoding: try encoder.encode(value), as: UTF8.self)
}
