import Dispatch
import Foundation
import Kura
import KuraCLI

/// `wishlist recent [--limit n] [--watch]`: the newest trips first, from a live query.
let recentCommand = Command(
  name: "recent",
  abstract: "Lists the trips added last, newest first.",
  discussion:
    "With --watch it keeps running and prints each trip added afterwards, by this or any other "
    + "process, until interrupted; with --json as well, one JSON object per trip and line.",
  options: [
    Option("limit", help: "How many trips (10 by default).", valueName: "n"), WishlistStore.option,
  ],
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
    withExtendedLifetime(query) { dispatchMain() }
  })

/// A value as JSON on one line (for `--watch --json`: one object per line).
func compactJSON<Value: Encodable>(_ value: Value) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  encoder.dateEncodingStrategy = .iso8601
  return String(decoding: try encoder.encode(value), as: UTF8.self)
}
