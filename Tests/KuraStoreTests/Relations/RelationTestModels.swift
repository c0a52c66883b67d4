import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport

@testable import Kura

/// A trip (the target of every reference below).
struct RTrip: PersistentModel, Equatable {
  var id = UUID()
  var name: String
  static var schemaName: String { "Trip" }
}

/// Cascade: deleting the trip deletes its activities.
struct RActivity: PersistentModel, Equatable {
  var id = UUID()
  var name: String
  var trip: RTrip.ID
  static var schemaName: String { "Activity" }
  static var schema: Schema<RActivity> {
    Schema(.reference(\.trip, to: RTrip.self, deleteRule: .cascade), .index(\.trip))
  }
}

/// Cascade, second level: deleting an activity deletes its steps.
struct RStep: PersistentModel, Equatable {
  var id: Int
  var activity: RActivity.ID
  static var schemaName: String { "Step" }
  static var schema: Schema<RStep> {
    Schema(.reference(\.activity, to: RActivity.self, deleteRule: .cascade))
  }
}

/// Nullify: deleting the trip clears the note's reference.
struct RNote: PersistentModel, Equatable {
  var id = UUID()
  var text: String
  var trip: RTrip.ID?
  static var schemaName: String { "Note" }
  static var schema: Schema<RNote> {
    Schema(.reference(\.trip, to: RTrip.self, deleteRule: .nullify))
  }
}

/// Deny: a trip with bookings cannot be deleted.
struct RBooking: PersistentModel, Equatable {
  var id: String
  var trip: RTrip.ID
  static var schemaName: String { "Booking" }
  static var schema: Schema<RBooking> {
    Schema(.reference(\.trip, to: RTrip.self, deleteRule: .deny))
  }
}

/// No action: the photo keeps pointing at a deleted trip.
struct RPhoto: PersistentModel, Equatable {
  var id = UUID()
  var trip: RTrip.ID
  static var schemaName: String { "Photo" }
  static var schema: Schema<RPhoto> {
    Schema(.reference(\.trip, to: RTrip.self, deleteRule: .noAction))
  }
}

let relationModels: [any PersistentModel.Type] = [
  RTrip.self, RActivity.self, RStep.self, RNote.self, RBooking.self, RPhoto.self,
]

/// A fresh store for the relation models on `engine` (on SQLite, the file `trips.store`).
func relationStore(_ engine: TestEngine, _ testName: String = #function) throws -> TestStore {
  try freshStore(engine, sqlite: .file("trips.store"), testName)
}

/// A container of every relation model on `store`.
func relationContainer(_ store: TestStore) throws -> ModelContainer {
  try ModelContainer(for: relationModels, configurations: store.configuration)
}
