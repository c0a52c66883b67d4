import Foundation
import Kura
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraTestSupport

/// A trip: text, a date, optional numbers and text, bytes, a nested value (stored as JSON), a
/// search index.
struct Trip: PersistentModel, Equatable {
  var id: Int
  var name: String
  var start: Date
  var budget: Double?
  var notes: String?
  var photo: Data?
  var tags: [String] = []
  var code = UUID()
  static var schema: Schema<Trip> { Schema(.searchable(\.name, \.notes), .index(\.name)) }
}

/// Cascade: deleting a trip deletes its activities.
struct Activity: PersistentModel, Equatable {
  var id: Int
  var name: String
  var trip: Trip.ID
  static var schema: Schema<Activity> {
    Schema(.reference(\.trip, to: Trip.self, deleteRule: .cascade), .index(\.trip))
  }
}

/// Deny: a trip with bookings can't be deleted.
struct Booking: PersistentModel, Equatable {
  var id: String
  var trip: Trip.ID
  static var schema: Schema<Booking> {
    Schema(.reference(\.trip, to: Trip.self, deleteRule: .deny), .unique(\.id))
  }
}

let studioModels: [any PersistentModel.Type] = [Trip.self, Activity.self, Booking.self]

/// Nullify: deleting a trip leaves its souvenirs, with no trip.
struct Souvenir: PersistentModel, Equatable {
  var id: Int
  var name: String
  var trip: Trip.ID?
  static var schema: Schema<Souvenir> {
    Schema(.reference(\.trip, to: Trip.self, deleteRule: .nullify), .index(\.trip))
  }
}

/// A folder of its own for one test, removed when the value is released.
final class StudioFolder: Sendable {
  let url: URL

  init(_ name: String = #function) {
    _ = signal(SIGPIPE, SIG_IGN)
    let safe = name.filter { $0.isLetter || $0.isNumber }
    url = URL(fileURLWithPath: NSTemporaryDirectory())
      .appendingPathComponent("kura-studio-\(safe.prefix(40))-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// The names of the files in the folder.
  var files: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
  }
}

/// A store of trips with activities and bookings: Kyoto (3 activities, a booking), Nara,
/// and trips with hostile names, `nil` and empty notes.
func seededStore(_ folder: StudioFolder) throws -> URL {
  let url = folder.file("trips.store")
  try seed(.url(url))
  return url
}

/// Saves the trips of ``seededStore(_:)`` in the store `configuration` names.
func seed(_ configuration: ModelConfiguration) throws {
  let container = try ModelContainer(for: studioModels, configurations: configuration)
  let context = ModelContext(container)
  let day = Date(timeIntervalSince1970: 1_796_000_000)
  try context.insert(Trip(id: 1, name: "Kyoto", start: day, budget: 1200, notes: "temples"))
  try context.insert(Trip(id: 2, name: "Nara", start: day + 86_400, budget: nil, notes: nil))
  try context.insert(
    Trip(id: 3, name: "<script>alert(1)</script>", start: day, budget: 10, notes: ""))
  try context.insert(
    Trip(
      id: 4, name: "<img src=x onerror=alert(2)>", start: day, budget: -3, notes: "Café",
      photo: Data([0, 1, 254, 255])))
  for (id, name) in [(1, "Temple"), (2, "Tea"), (3, "Garden")] {
    try context.insert(Activity(id: id, name: name, trip: 1))
  }
  try context.insert(Activity(id: 4, name: "Deer", trip: 2))
  try context.insert(Booking(id: "ryokan", trip: 1))
  try context.save()
}
