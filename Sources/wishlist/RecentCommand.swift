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
    + "process, until interrupted.",
  options: [Option("limit", help: "How many trips (10 by default).", valueName: "n")],
  flags: [Flag("watch", help: "Keep printing trips as they are added.")],
  run: { invocation in
    let limit: Int = try invocation.option("limit") ?? 10
    guard limit > 0 else {
      throw UsageError(
        "`\(limit)` is not a valid value for --limit: give a number above 0.",
        command: invocation.commandPath)
    }
    let descriptor = FetchDescriptor<Trip>(
      sortBy: [SortDescriptor(\.createdAt, order: .reverse)], fetchLimit: limit)
    let container = try WishlistStore.container()
    guard invocation.flag("watch") else {
      let trips = try ModelContext(container).fetch(descriptor)
      if trips.isEmpty { print("No trips yet. Add one with `wishlist trip add <name>`.") }
      for trip in trips { print(WishlistStore.line(trip)) }
      return
    }
    let query = try LiveQuery(descriptor, in: container)
    let updates = query.changes
    Task {
      var shown = Set<Trip.ID>()
      var first = true
      for await trips in updates {
        if first && trips.isEmpty { print("No trips yet; waiting for trips to be added.") }
        // The first listing is newest first; later additions print in the order they came.
        for trip in first ? trips : trips.reversed() where !shown.contains(trip.id) {
          print((first ? "" : "+ ") + WishlistStore.line(trip))
          shown.insert(trip.id)
        }
        if first { print("Watching for new trips (interrupt to stop).") }
        first = false
        fflush(nil)
      }
    }
    withExtendedLifetime(query) { dispatchMain() }
  })
