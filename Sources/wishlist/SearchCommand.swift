import Foundation
import Kura
import KuraCLI
import KuraStoreCLI
import KuraSync
import KuraSyncCore

/// `wishlist search <text>`: trips and activities whose names contain the words.
let searchCommand = Command(
  name: "search",
  abstract: "Finds trips and activities by the words of their names (full-text search).",
  discussion: """
    Every word must be found in the name: as the start of a word (ignoring case and accents, \
    `kyo` finds Kyōto) or anywhere inside it (`寺` and `寺巡り` find お寺巡り).
    """,
  arguments: [Argument("text", help: "The words to find.", isRepeating: true)],
  options: WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    let text = invocation.words("text").joined(separator: " ")
    guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
      throw UsageError(
        "`\(text)` is not a valid search: give at least one word.", command: invocation.commandPath)
    }
    // Without a store yet, nothing matches (and no store is created).
    let context = try WishlistStore.readingContext(invocation)
    let trips = try context?.fetch(FetchDescriptor<Trip>(), matching: text) ?? []
    let activities = try context?.fetch(FetchDescriptor<Activity>(), matching: text) ?? []
    if invocation.json {
      struct Results: Encodable {
        var trips: [Trip]
        var activities: [Activity]
      }
      return try invocation.printJSON(Results(trips: trips, activities: activities))
    }
    if trips.isEmpty && activities.isEmpty { print("Nothing matches `\(visible(text))`.") }
    for trip in trips {
      print("trip      \(visible(trip.name))  (\(WishlistStore.shortID(trip.id)))")
    }
    for activity in activities {
      let trip = try context?.model(for: activity.trip, as: Trip.self)
      print("activity  \(visible(activity.name))  (\(visible(trip?.name ?? "?")))")
    }
  })
