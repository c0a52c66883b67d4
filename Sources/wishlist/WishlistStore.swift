import Foundation
import Kura
import KuraCLI

/// The app's one model container (the seed's "set up once for the app"): the default store in
/// the app's data folder, `<data>/default.store`.
enum WishlistStore {
  static func container() throws -> ModelContainer {
    try ModelContainer(for: Trip.self, Activity.self, configurations: configuration)
  }

  /// The store: the PostgreSQL database `KURA_STORE_URL` names, else the default store file.
  static var configuration: ModelConfiguration {
    if let text = ProcessInfo.processInfo.environment["KURA_STORE_URL"], !text.isEmpty,
      let url = URL(string: text)
    {
      return .postgres(url)
    }
    return .default
  }

  static func context() throws -> ModelContext { ModelContext(try container()) }

  /// A context for a command that only reads, or `nil` when there is no store yet: it never
  /// creates or initialises a store. A store an older version wrote is brought up to date first
  /// (in one transaction, as any write would).
  static func readingContext() throws -> ModelContext? {
    var configuration = configuration
    if configuration == .default {
      let url = try Locations.current().defaultStoreURL
      guard (try? FileManager.default.attributesOfItem(atPath: url.path)) != nil else {
        return nil
      }
    }
    configuration.allowsSave = false
    do {
      return ModelContext(
        try ModelContainer(for: Trip.self, Activity.self, configurations: configuration))
    } catch let error as StoreError where error.code == .outdatedStore {
      return try context()
    } catch let error as StoreError
      where configuration != .default && error.code == .cannotOpen && error.postgresError == nil
    {
      return nil  // no store in the database yet
    }
  }

  /// The trip a command names: by exact name (ignoring case), or by the start of its id.
  static func trip(_ reference: String, in context: ModelContext) throws -> Trip {
    let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.createdAt)]))
    let named = trips.filter { $0.name.caseInsensitiveCompare(reference) == .orderedSame }
    if named.count == 1 { return named[0] }
    let byID = trips.filter { $0.id.uuidString.hasPrefix(reference.uppercased()) }
    if named.isEmpty && byID.count == 1 && reference.count >= 4 { return byID[0] }
    let starting = trips.filter { $0.name.lowercased().hasPrefix(reference.lowercased()) }
    if named.isEmpty && byID.isEmpty && starting.count == 1 { return starting[0] }
    if named.count > 1 || byID.count > 1 {
      throw WishlistError(
        "Several trips match `\(reference)`: "
          + (named.count > 1 ? named : byID).map { "\($0.name) (\(shortID($0.id)))" }
          .joined(separator: ", ") + ". Name the trip by the start of its id.")
    }
    throw WishlistError(
      "There is no trip `\(reference)`. See the trips with `wishlist trip list`.")
  }

  /// A context, with the trip and the activity a command's `trip` and `activity` arguments name.
  static func namedActivity(_ invocation: Invocation) throws -> (ModelContext, Trip, Activity) {
    let context = try context()
    let trip = try trip(try invocation.argument("trip"), in: context)
    return (context, trip, try activity(try invocation.argument("activity"), of: trip, in: context))
  }

  /// The activity of a trip a command names: by exact name (ignoring case) or the start of its id.
  static func activity(_ reference: String, of trip: Trip, in context: ModelContext) throws
    -> Activity
  {
    let activities = try context.related(Activity.self, of: trip, via: \.trip)
    let named = activities.filter { $0.name.caseInsensitiveCompare(reference) == .orderedSame }
    if named.count == 1 { return named[0] }
    let byID = activities.filter { $0.id.uuidString.hasPrefix(reference.uppercased()) }
    if named.isEmpty && byID.count == 1 && reference.count >= 4 { return byID[0] }
    if named.count > 1 || byID.count > 1 {
      throw WishlistError(
        "Several activities of \(trip.name) match `\(reference)`. Name it by the start of its "
          + "id (see `wishlist activity list \"\(trip.name)\"`).")
    }
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
