import Foundation
import Kura
import KuraStoreCLI
import KuraSync
import KuraSyncCore

/// Something to do on a trip: its name, whether it is done, and its trip (deleting the trip
/// deletes it: delete rule cascade).
struct Activity: PersistentModel, Equatable {
  var id = UUID()
  var name: String
  var isComplete = false
  var trip: Trip.ID
  var createdAt = Date()

  static var schema: Schema<Activity> {
    Schema(
      .reference(\.trip, to: Trip.self, deleteRule: .cascade), .index(\.trip),
      .searchable(\.name))
  }
}

/// How the activity list is sorted; the last choice is remembered in preferences (the seed's
/// `@AppStorage`), not in the model.
enum ActivitySort: String, Codable, Sendable, CaseIterable {
  case title, date, completion

  var sortDescriptors: [SortDescriptor<Activity>] {
    switch self {
    case .title: return [SortDescriptor(\.name), SortDescriptor(\.createdAt)]
    case .date: return [SortDescriptor(\.createdAt), SortDescriptor(\.name)]
    case .completion:
      return [SortDescriptor(\.isComplete), SortDescriptor(\.name), SortDescriptor(\.createdAt)]
    }
  }
}

extension Preferences.Key {
  /// The activity sort order chosen last (`title` until one is chosen).
  static var activitySort: Preferences.Key<ActivitySort> { .init("activitySort", default: .title) }
}
