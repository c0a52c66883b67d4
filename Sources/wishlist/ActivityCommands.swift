import Foundation
import Kura
import KuraCLI
import KuraStoreCLI
import KuraSync
import KuraSyncCore

/// `wishlist activity add|done|rename|delete|list`.
let activityCommand = Command(
  name: "activity",
  abstract: "Adds activities to a trip, marks them done (or not), renames, deletes and lists them.",
  subcommands: [activityAdd, activityDone, activityRename, activityDelete, activityList])

private let tripArgument = Argument(
  "trip", help: "The trip's name, the start of its id, or the start of its name.")

private let activityAdd = Command(
  name: "add",
  abstract: "Adds an activity to a trip.",
  arguments: [tripArgument, Argument("name", help: "The activity, such as \"Tea ceremony\".")],
  options: WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    let context = try WishlistStore.context(invocation)
    let trip = try WishlistStore.trip(try invocation.argument("trip"), in: context)
    let name = try nameArgument(invocation, "name", of: "activity")
    let activity = Activity(name: name, trip: trip.id)
    try context.insert(activity)
    try context.save()
    if invocation.json { return try invocation.printJSON(activity) }
    print("Added \(visible(name)) to \(visible(trip.name)).")
  })

private let activityDone = Command(
  name: "done",
  abstract: "Marks an activity of a trip as done (--undo: not done).",
  arguments: [
    tripArgument,
    Argument("activity", help: "The activity's name, the start of its id or of its name."),
  ],
  options: WishlistStore.options,
  flags: [Flag("undo", help: "Marks it as not done.")],
  supportsJSON: true,
  run: { invocation in
    let (context, trip, named) = try WishlistStore.namedActivity(invocation)
    var activity = named
    activity.isComplete = !invocation.flag("undo")
    try context.insert(activity)
    try context.save()
    if invocation.json { return try invocation.printJSON(activity) }
    print(
      "\(activity.isComplete ? "Done" : "Not done"): \(visible(activity.name))"
        + " (\(visible(trip.name))).")
  })

private let activityRename = Command(
  name: "rename",
  abstract: "Renames an activity of a trip.",
  arguments: [
    tripArgument,
    Argument("activity", help: "The activity's name, the start of its id or of its name."),
    Argument("new-name", help: "The new name."),
  ],
  options: WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    let (context, trip, named) = try WishlistStore.namedActivity(invocation)
    var activity = named
    let name = try nameArgument(invocation, "new-name", of: "activity")
    let old = activity.name
    activity.name = name
    try context.insert(activity)
    try context.save()
    if invocation.json { return try invocation.printJSON(activity) }
    print("Renamed \(visible(old)) to \(visible(name)) (\(visible(trip.name))).")
  })

private let activityDelete = Command(
  name: "delete",
  abstract: "Deletes one activity of a trip.",
  discussion: """
    The trip and the activity are named by their whole names or the start of their ids (see \
    `wishlist activity list <trip>`), never by the start of a name alone.
    """,
  arguments: [
    Argument("trip", help: "The trip's whole name or the start of its id."),
    Argument("activity", help: "The activity's whole name or the start of its id."),
  ],
  options: WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    let (context, trip, activity) = try WishlistStore.namedActivity(invocation, exactly: true)
    try context.delete(activity)
    try context.save()
    if invocation.json { return try invocation.printJSON(activity) }
    print("Deleted \(visible(activity.name)) from \(visible(trip.name)).")
  })

private let activityList = Command(
  name: "list",
  abstract: "Lists a trip's activities, sorted as chosen last (title at first).",
  discussion: "The order chosen with --sort is remembered for the next runs.",
  arguments: [tripArgument],
  options: [
    Option("sort", help: "title, date or completion; remembered.", valueName: "order")
  ] + WishlistStore.options,
  supportsJSON: true,
  run: { invocation in
    let sort: ActivitySort
    if let text: String = try invocation.option("sort") {
      guard let chosen = ActivitySort(rawValue: text.lowercased()) else {
        throw UsageError(
          "`\(text)` is not a valid value for --sort: use title, date or completion.",
          command: invocation.commandPath)
      }
      // Choosing an order is the one write of this command (it is remembered).
      try Preferences(locations: Locations.current()).set(chosen, for: .activitySort)
      sort = chosen
    } else {
      // Read without creating the app's preferences when no order was ever chosen.
      do {
        sort = try Preferences.readOnly(locations: Locations.current())[.activitySort]
      } catch let error as PreferencesError where error.code == .suiteNotFound {
        sort = Preferences.Key<ActivitySort>.activitySort.defaultValue
      }
    }
    let reference: String = try invocation.argument("trip")
    guard let context = try WishlistStore.readingContext(invocation) else {
      throw WishlistError(
        "There is no trip `\(reference)`. See the trips with `wishlist trip list`.")
    }
    let trip = try WishlistStore.trip(reference, in: context)
    let activities = try context.related(
      Activity.self, of: trip, via: \.trip, sortBy: sort.sortDescriptors)
    if invocation.json { return try invocation.printJSON(activities) }
    print("\(visible(trip.name)), by \(sort.rawValue):")
    if activities.isEmpty {
      print(
        "  No activities yet. Add one with `wishlist activity add \"\(visible(trip.name))\""
          + " <name>`.")
    }
    for activity in activities {
      print(
        "  [\(activity.isComplete ? "x" : " ")] \(visible(activity.name))"
          + "  (\(WishlistStore.shortID(activity.id)))")
    }
  })
