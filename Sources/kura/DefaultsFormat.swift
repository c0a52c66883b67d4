import Foundation
import Kura
import KuraCLI

/// How `kura defaults` prints values.
enum DefaultsFormat {
  /// `key = value` lines, sorted by key.
  static func lines(_ values: [String: PreferenceValue]) -> [String] {
    values.keys.sorted().map { "\($0) = \(values[$0].map(String.init(describing:)) ?? "")" }
  }

  /// One line of `watch` output.
  static func change(_ name: String, _ value: PreferenceValue?, json: Bool) -> String {
    if json {
      struct Change: Encodable {
        var key: String
        var value: PreferenceValue?
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      encoder.dateEncodingStrategy = .iso8601
      let data = (try? encoder.encode(Change(key: name, value: value))) ?? Data()
      return String(decoding: data, as: UTF8.self)
    }
    guard let value else { return "\(name) removed" }
    return "\(name) = \(value)"
  }

  /// The help of a `write` type flag.
  static func help(for type: PreferenceValue.TextType) -> String {
    switch type {
    case .string: return "Store <value> as text (the default)."
    case .integer: return "Store <value> as a whole number, such as 42."
    case .double: return "Store <value> as a number, such as 2.5."
    case .bool: return "Store <value> as a Boolean: true/false, yes/no, 1/0."
    case .date: return "Store <value> as a date, in ISO 8601 such as 2026-11-30T10:15:00Z."
    case .json: return "Store <value> read as JSON (objects become dictionaries)."
    }
  }
}
