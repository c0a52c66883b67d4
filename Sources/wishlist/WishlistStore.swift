import Foundation
import Kura
import KuraCLI
import KuraStoreCLI
import KuraSync
import KuraSyncCore

/// The app's one model container (the seed's "set up once for the app"): the default store in
/// the app's data folder, `<data>/default.store`, unless `--store` or `KURA_STORE_URL` names
/// another file or a PostgreSQL database.
enum WishlistStore {
  /// The `--store` option of every command that opens the store.
  static let option = StoreLocation.option(default: "default.store in the app's data folder")

  /// The store a command uses: `--store`, else `KURA_STORE_URL`, else the default store.
  static func location(_ invocation: Invocation) throws -> StoreLocation {
    try StoreLocation.resolve(invocation, default: try Locations.current().defaultStoreURL)
  }

  /// The options of every command that opens the store: `--store` and sync's
  /// (WishlistSync.swift).
  static let options = [option] + WishlistSync.options

  /// The store's container; with sync settings (`--sync`, `KURA_SYNC_URL`), syncing, after a
  /// first exchange with the server.
  static func container(_ invocation: Invocation) throws -> ModelContainer {
    let store = try location(invocation)
    guard let settings = try WishlistSync.settings(invocation) else { return try container(store) }
    var configuration = try store.configuration
    configuration.sync = settings
    let container = try ModelContainer(
      for: Trip.self, Activity.self, configurations: configuration)
    try WishlistSync.start(container)
    return container
  }

  private static func container(_ store: StoreLocation) throws -> ModelContainer {
    try ModelContainer(for: Trip.self, Activity.self, configurations: try store.configuration)
  }

  static func context(_ invocation: Invocation) throws -> ModelContext {
    ModelContext(try container(invocation))
  }

  /// A context for a command that only reads, or `nil` when there is no store yet: it never
  /// creates or initialises a store (unless it syncs: then others' trips are brought in). A store an older version wrote is brought up to date first
  /// (in one transaction, as any write would).
  static func readingContext(_ invocation: Invocation) throws -> ModelContext? {
    // Synced, the store is made (if need be) and brought the server's trips first.
    if try WishlistSync.settings(invocation) != nil {
      return ModelContext(try container(invocation))
    }
    let store = try location(invocation)
    guard let configuration = try store.readingConfiguration() else { return nil }
    do {
      return ModelContext(
        try ModelContainer(for: Trip.self, Activity.self, configurations: configuration))
    } catch let error as StoreError where error.code == .outdatedStore {
      return ModelContext(try container(store))
    }
  }

  /// The trip a command names: by its name (the exact case first, then ignoring case), by the
  /// start of its id (4 characters or more), or — unless the command deletes (`exactly`) — by
  /// the start of its name when one trip's name starts so. A reference that matches several
  /// trips is an error listing them; nothing is ever picked on a guess.
  static func trip(_ reference: String, in context: ModelContext, exactly: Bool = false) throws
    -> Trip
  {
    let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.createdAt)]))
    let pick = Pick(reference: reference, kind: "trip", exactly: exactly)
    if let trip = try pick.one(of: trips, name: \.name, id: \.id) { return trip }
    throw WishlistError(
      "There is no trip `\(reference)`. See the trips with `wishlist trip list`.")
  }

  /// A context, with the trip and the activity a command's `trip` and `activity` arguments name
  /// (`exactly` for a command that deletes: see ``trip(_:in:exactly:)``).
  static func namedActivity(_ invocation: Invocation, exactly: Bool = false) throws
    -> (ModelContext, Trip, Activity)
  {
    let context = try context(invocation)
    let trip = try trip(try invocation.argument("trip"), in: context, exactly: exactly)
    return (
      context, trip,
      try activity(try invocation.argument("activity"), of: trip, in: context, exactly: exactly)
    )
  }

  /// The activity of a trip a command names, by the rules of ``trip(_:in:exactly:)``.
  static func activity(
    _ reference: String, of trip: Trip, in context: ModelContext, exactly: Bool = false
  ) throws -> Activity {
    let activities = try context.related(
      Activity.self, of: trip, via: \.trip, sortBy: [SortDescriptor(\.createdAt)])
    let pick = Pick(
      reference: reference, kind: "activity", exactly: exactly,
      listing: "wishlist activity list \"\(trip.name)\"", owner: trip.name)
    if let activity = try pick.one(of: activities, name: \.name, id: \.id) { return activity }
    throw WishlistError(
      "\(trip.name) has no activity `\(reference)`. See them with "
        + "`wishlist activity list \"\(trip.name)\"`.")
  }

  static func shortID(_ id: UUID) -> String { String(id.uuidString.prefix(8)) }

  /// Dates as `2026-11-30`, in the local time zone.
  static func dateFormatter() -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone.current
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter
  }

  static func format(_ date: Date) -> String { dateFormatter().string(from: date) }

  static func line(_ trip: Trip, activities: Int? = nil) -> String {
    var line = "\(visible(trip.name))  \(format(trip.startDate)) – \(format(trip.endDate))"
    if let activities { line += "  \(activities) \(activities == 1 ? "activity" : "activities")" }
    line += "  photo: \(trip.photoURL == nil ? "placeholder" : visible(trip.photo.absoluteString))"
    return line + "  (\(shortID(trip.id)))"
  }
}

/// How a command's argument picks one trip or activity: its whole name (exact case first, then
/// ignoring case), the start of its id, or (when not `exactly`) the start of one name.
struct Pick {
  var reference: String
  var kind: String
  var exactly: Bool
  var listing = "wishlist trip list"
  var owner: String?

  /// The item `reference` names, `nil` when it names none, or an error listing the candidates
  /// when it could be several (or, `exactly`, when it is only the start of a name).
  func one<Item>(of items: [Item], name: (Item) -> String, id: (Item) -> UUID) throws -> Item? {
    let sameCase = items.filter { name($0) == reference }
    if sameCase.count == 1 { return sameCase[0] }
    if sameCase.count > 1 { throw ambiguous("are named", sameCase, name, id) }
    let ignoringCase = items.filter {
      name($0).caseInsensitiveCompare(reference) == .orderedSame
    }
    if ignoringCase.count == 1 { return ignoringCase[0] }
    if ignoringCase.count > 1 {
      throw ambiguous("are named", ignoringCase, name, id)
    }
    let isIDStart = reference.count >= 4 && reference.allSatisfy { $0.isHexDigit || $0 == "-" }
    if isIDStart {
      let byID = items.filter { id($0).uuidString.hasPrefix(reference.uppercased()) }
      if byID.count == 1 { return byID[0] }
      if byID.count > 1 { throw ambiguous("have an id starting with", byID, name, id) }
    }
    let lowered = reference.lowercased()
    let starting = items.filter { !lowered.isEmpty && name($0).lowercased().hasPrefix(lowered) }
    if starting.count == 1 && !exactly { return starting[0] }
    if starting.count == 1 {
      throw WishlistError(
        "`\(reference)` is not the name of \(article) \(kind)\(of): it is the start of "
          + "\(candidates(starting, name, id)). To delete it, give its whole name or the start "
          + "of its id.")
    }
    if starting.count > 1 {
      throw WishlistError(
        "`\(reference)` matches \(candidates(starting, name, id)): give the whole name or the "
          + "start of an id (see `\(listing)`).")
    }
    return nil
  }

  private var article: String { kind.first.map { "aeiou".contains($0) } == true ? "an" : "a" }

  private var of: String { owner.map { " of \($0)" } ?? "" }

  private func ambiguous<Item>(
    _ how: String, _ items: [Item], _ name: (Item) -> String, _ id: (Item) -> UUID
  ) -> WishlistError {
    let plural = kind == "activity" ? "activities" : "\(kind)s"
    return WishlistError(
      "\(items.count) \(plural)\(of) \(how) `\(reference)`: \(candidates(items, name, id)). "
        + "Name one by the start of its id.")
  }

  /// `Kyoto (1A2B3C4D) and Kyushu (5E6F7A8B)`.
  private func candidates<Item>(_ items: [Item], _ name: (Item) -> String, _ id: (Item) -> UUID)
    -> String
  {
    let shown = items.map { "\(name($0)) (\(WishlistStore.shortID(id($0))))" }
    guard shown.count > 1, let last = shown.last else { return shown.first ?? "" }
    return shown.dropLast().joined(separator: ", ") + " and " + last
  }
}

/// The name an argument gives, without surrounding spaces; a usage error when nothing is left.
func nameArgument(_ invocation: Invocation, _ argument: String, of kind: String) throws -> String {
  let given: String = try invocation.argument(argument)
  let name = given.trimmingCharacters(in: .whitespacesAndNewlines)
  guard !name.isEmpty else {
    throw UsageError(
      "`\(given)` is not a valid \(kind) name: give a name with at least one letter.",
      command: invocation.commandPath)
  }
  return name
}
