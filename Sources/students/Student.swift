import Foundation
import Kura
import KuraStoreCLI

/// One student of the seed's Core Data app: a full name, and when it was added (the list shows
/// students in that order; `delete-last` removes the newest).
struct Student: PersistentModel, Equatable {
  var id = UUID()
  var student: String
  var added = Date()

  static var schema: Schema<Student> { Schema(.index(\.added)) }

  /// The seed's first names.
  static let firstNames = ["Ginny", "Harry", "Hermione", "Luna", "Ron"]
  /// The seed's last names.
  static let lastNames = ["Granger", "Lovegood", "Potter", "Weasley"]

  /// A random "First Last" name from the seed's lists.
  static func randomName() -> String {
    "\(firstNames.randomElement() ?? "Harry") \(lastNames.randomElement() ?? "Potter")"
  }
}
