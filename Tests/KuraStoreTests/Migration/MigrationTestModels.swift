import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport

@testable import Kura

/// The first version of the models, as an earlier app wrote them.
enum TripsV1: VersionedSchema {
  static let versionIdentifier = 1
  static var models: [any PersistentModel.Type] { [Trip.self, Activity.self] }

  struct Trip: PersistentModel, Equatable {
    var id = UUID()
    var name: String
    var notes: String
    var days: Int
    var favorite: Bool
    var budget: Int?
  }

  struct Activity: PersistentModel, Equatable {
    var id = UUID()
    var name: String
    var trip: UUID
  }
}

/// Automatic changes from V1: `rating` added with a default, `cover` added optional, `notes`
/// removed, `name` renamed `title`, `days` widened to Double, `favorite` widened to Int,
/// `budget` kept; activities now declare their trip as a cascading reference.
enum TripsV2: VersionedSchema {
  static let versionIdentifier = 2
  static var models: [any PersistentModel.Type] { [Trip.self, Activity.self] }

  struct Trip: PersistentModel, Equatable {
    var id = UUID()
    var title: String
    var days: Double
    var favorite: Int
    var budget: Int?
    var rating: Int
    var cover: URL?
    static var schema: Schema<Trip> {
      Schema(.renamed(\.title, from: "name"), .defaultValue(\.rating, 3))
    }
  }

  struct Activity: PersistentModel, Equatable {
    var id = UUID()
    var name: String
    var trip: UUID
    static var schema: Schema<Activity> {
      Schema(.reference(\.trip, to: Trip.self, deleteRule: .cascade))
    }
  }
}

/// A version that needs code: `slug` is new, required, and computed from the name.
enum TripsV3: VersionedSchema {
  static let versionIdentifier = 3
  static var models: [any PersistentModel.Type] { [Trip.self, TripsV2.Activity.self] }

  struct Trip: PersistentModel, Equatable {
    var id = UUID()
    var title: String
    var days: Double
    var favorite: Int
    var budget: Int?
    var rating: Int
    var cover: URL?
    var slug: String
  }
}

/// Refused changes from V1 (each alone).
enum Refused {
  /// A new non-optional property without a default.
  struct NewRequired: PersistentModel {
    var id = UUID()
    var name: String
    var notes: String
    var days: Int
    var favorite: Bool
    var budget: Int?
    var country: String
    static var schemaName: String { "Trip" }
  }

  /// A narrowed type: `name` from String to Int.
  struct Narrowed: PersistentModel {
    var id = UUID()
    var name: Int
    var notes: String
    var days: Int
    var favorite: Bool
    var budget: Int?
    static var schemaName: String { "Trip" }
  }

  /// An optional property made required while some rows have no value.
  struct NoLongerOptional: PersistentModel {
    var id = UUID()
    var name: String
    var notes: String
    var days: Int
    var favorite: Bool
    var budget: Int
    static var schemaName: String { "Trip" }
  }
}

/// The declared step from V1 to V2 (it drops `notes`, so it must be declared).
enum TripsV2Plan: SchemaMigrationPlan {
  static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
  static var stages: [MigrationStage] {
    [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)]
  }
}

enum TripsPlan: SchemaMigrationPlan {
  static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
  static var stages: [MigrationStage] {
    [
      .lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self),
      .custom(fromVersion: TripsV2.self, toVersion: TripsV3.self) { context in
        try context.transform(TripsV2.Trip.self, to: TripsV3.Trip.self) { old in
          TripsV3.Trip(
            id: old.id, title: old.title, days: old.days, favorite: old.favorite,
            budget: old.budget, rating: old.rating, cover: old.cover,
            slug: old.title.lowercased().replacingOccurrences(of: " ", with: "-"))
        }
      },
    ]
  }
}

/// Writes a V1 store with two trips (one with a budget) and one activity.
func writeV1Store(_ store: TestStore) throws -> (TripsV1.Trip, TripsV1.Trip, TripsV1.Activity) {
  try writeV1Store(store.configuration)
}

/// Writes a V1 store with two trips (one with a budget) and one activity at `url`.
func writeV1Store(_ url: URL) throws -> (TripsV1.Trip, TripsV1.Trip, TripsV1.Activity) {
  try writeV1Store(.url(url))
}

private func writeV1Store(_ configuration: ModelConfiguration) throws -> (
  TripsV1.Trip, TripsV1.Trip, TripsV1.Activity
) {
  let container = try ModelContainer(
    for: TripsV1.Trip.self, TripsV1.Activity.self, configurations: configuration)
  let context = ModelContext(container)
  let kyoto = TripsV1.Trip(name: "Kyoto", notes: "temples", days: 4, favorite: true, budget: 900)
  let nara = TripsV1.Trip(name: "Nara Park", notes: "deer", days: 1, favorite: false, budget: nil)
  let deer = TripsV1.Activity(name: "Feed deer", trip: nara.id)
  try context.insert(kyoto)
  try context.insert(nara)
  try context.insert(deer)
  try context.save()
  return (kyoto, nara, deer)
}
