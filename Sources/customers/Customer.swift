import Foundation
import Kura
import KuraCLI

/// One customer of the list (seed §1's custom list): the whole list is one Codable array kept
/// under one key of the app's standard suite.
struct Customer: Codable, Identifiable, Sendable, Equatable {
  var id: UUID
  var customerName: String
  var customerNumber: Int

  /// The row as the seed app shows it: `No.<number>: <name>`.
  /// The seed's `No.<number>: <name>`, with control characters in the name made visible.
  var row: String { "No.\(customerNumber): \(visible(customerName))" }
}

extension Preferences.Key {
  /// The customer list, under the seed's key name.
  static var customers: Preferences.Key<[Customer]> { .init("顧客情報保存", default: []) }
  /// The seed's `menu` field (scene state).
  static var menu: Preferences.Key<String> { .init("menu", default: "") }
  /// The seed's `fruits` field (App Group suite).
  static var fruits: Preferences.Key<String> { .init("fruits", default: "") }
  /// The seed's `basket` field (standard suite).
  static var basket: Preferences.Key<String> { .init("basket", default: "") }
}

/// The App Group the seed shares `fruits` through.
let fruitsGroup = "group.iOS17.M_Kaku"

/// The app's standard suite, opened so that a failure is an error: `Preferences.standard` would
/// fall back to memory with a warning, and a command would then report a change it never saved.
func standardPreferences() throws -> Preferences {
  try Preferences(locations: Locations.current())
}

/// The app's standard suite opened only to read, or `nil` when it has no file yet: a command
/// that only reads creates and changes nothing.
func readingStandardPreferences() throws -> Preferences? {
  try readingSuite { try Preferences.readOnly(locations: Locations.current()) }
}

/// A suite opened only to read, or `nil` when it has no file.
func readingSuite(_ open: () throws -> Preferences) throws -> Preferences? {
  do {
    return try open()
  } catch let error as PreferencesError where error.code == .suiteNotFound {
    return nil
  }
}
