import Foundation

/// A small element for collection documents.
package struct Note: Codable, Identifiable, Sendable, Equatable {
  package var id: Int
  package var text: String

  /// A value of each stored property.
  package init(id: Int, text: String) {
    self.id = id
    self.text = text
  }
}
