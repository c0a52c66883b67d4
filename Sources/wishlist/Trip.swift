import Foundation
import Kura
import KuraStoreCLI
import KuraSync
import KuraSyncCore

/// A trip of the wish list (seed §3): a name, an optional photo, start and end dates, and when
/// it was added; its activities refer to it and go when it goes.
struct Trip: PersistentModel, Equatable {
  var id = UUID()
  var name: String
  var photoURL: URL?
  var startDate: Date
  var endDate: Date
  var createdAt = Date()

  /// The photo, or the placeholder picture when none is set (the seed's computed property).
  var photo: URL { photoURL ?? Trip.placeholderPhoto }

  static let placeholderPhoto = URL(fileURLWithPath: "/usr/share/wishlist/placeholder.jpg")

  static var schema: Schema<Trip> {
    Schema(.index(\.createdAt), .index(\.startDate), .searchable(\.name))
  }
}
