import Foundation
import Kura
import KuraCLI
import KuraStoreCLI
import KuraSync
import KuraSyncCore

/// `wishlist trip add|list|rename|delete`.
let tripCommand = Command(
  name: "trip",
  abstract: "Adds, lists, renames and deletes trips.",
  subcommands: [tripAdd, tripList, tripRename, tripDelete])

private func date(_ invocation: Invocation, _ name: String) throws -> Date? {
  guard let text: String = try invocation.option(name) else { return nil }
  // Four-digit year, two-digit month and day, and a day the calendar has (no 2026-02-30).
  let digits = text.withASCIIDigits
  let shape =
    digits.utf8.count == 10
    && digits.enumerated().allSatisfy { index, character in
      index == 4 || index == 7 ? character == "-" : character.isASCII && character.isNumber
    }
  guard shape, let date = WishlistStore.dateFormatter().date(from: digits),
    WishlistStore.format(date) == digits
  else {
    throw UsageError(
      "`\(text)` is not a valid value for --\(name): give a date as year-month-day, such as"
        + " 2026-12-24 (a four-digit year from 0001 to 9999).", command: invocation.commandPath)
  }
  return date
}

private let tripAdd = Command(
  name: "add",
  abstract: "Adds a trip.",
  arguments: [Argument("name", help: "The trip's name, such as \"Kyoto\".")],
  options: [
    Option("photo", help: "The photo's URL (a placeholder is shown when none).", valueName: "url"),
    Option(
      "start", help: "The first day, such as 2026-12-24 (today by default).", valueName: "date"),
    Option("end", help: "The last day (the first day by default).", valueName: "date"),
  ] + WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    let name = try nameArgument(invocation, "name", of: "trip")
    var photo: URL?
    if let text: String = try invocation.option("photo") {
      // A photo is fetched from the web: an http or https URL with a host, nothing else
      // (`javascript:`, `file:`, `data:`).
      guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased()),
        url.host?.isEmpty == false
      else {
        throw UsageError(
          "`\(text)` is not a valid value for --photo: give an http or https URL such as "
            + "https://example.com/kyoto.jpg.", command: invocation.commandPath)
      }
      photo = url
    }
    let today = Calendar.current.startOfDay(for: Date())
    let start = try date(invocation, "start") ?? today
    let end = try date(invocation, "end") ?? start
    guard end >= start else {
      throw UsageError(
        "`\(WishlistStore.format(end))` is not a valid value for --end: the trip can't end "
          + "before it starts (\(WishlistStore.format(start))).", command: invocation.commandPath)
    }
    let trip = Trip(name: name, photoURL: photo, startDate: start, endDate: end)
    let context = try WishlistStore.context(invocation)
    try context.insert(trip)
    try context.save()
    if invocation.json { return try invocation.printJSON(trip) }
    print("Added trip \(visible(trip.name)) (\(WishlistStore.shortID(trip.id))).")
  })

private let tripList = Command(
  name: "list",
  abstract: "Lists the trips by start date, with their activity counts.",
  options: WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    guard let context = try WishlistStore.readingContext(invocation) else {
      if invocation.json { return try invocation.printJSON([Trip]()) }
      return print("No trips yet. Add one with `wishlist trip add <name>`.")
    }
    let trips = try context.fetch(
      FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate), SortDescriptor(\.name)]))
    if invocation.json { return try invocation.printJSON(trips) }
    if trips.isEmpty { print("No trips yet. Add one with `wishlist trip add <name>`.") }
    for trip in trips {
      let count = try context.fetchCount(FetchDescriptor<Activity>.related(to: trip, via: \.trip))
      print(WishlistStore.line(trip, activities: count))
    }
  })

private let tripRename = Command(
  name: "rename",
  abstract: "Renames a trip.",
  arguments: [
    Argument("trip", help: "The trip's name, the start of its id, or the start of its name."),
    Argument("new-name", help: "The new name."),
  ],
  options: WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    let context = try WishlistStore.context(invocation)
    var trip = try WishlistStore.trip(try invocation.argument("trip"), in: context)
    let name = try nameArgument(invocation, "new-name", of: "trip")
    let old = trip.name
    trip.name = name
    try context.insert(trip)
    try context.save()
    if invocation.json { return try invocation.printJSON(trip) }
    print("Renamed \(visible(old)) to \(visible(name)).")
  })

private let tripDelete = Command(
  name: "delete",
  abstract: "Deletes a trip and its activities.",
  discussion: """
    The trip is named by its whole name or the start of its id (see `wishlist trip list`), \
    never by the start of its name alone.
    """,
  arguments: [Argument("trip", help: "The trip's whole name or the start of its id.")],
  options: WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    let context = try WishlistStore.context(invocation)
    let trip = try WishlistStore.trip(try invocation.argument("trip"), in: context, exactly: true)
    try context.delete(trip)
    let changes = try context.save()
    let count = changes.deleted(Activity.self).count
    if invocation.json {
      struct Deleted: Encodable {
        var trip: Trip
        var deletedActivities: Int
      }
      return try invocation.printJSON(Deleted(trip: trip, deletedActivities: count))
    }
    print(
      "Deleted trip \(visible(trip.name)) and its \(count) \(count == 1 ? "activity" : "activities")."
    )
  })
