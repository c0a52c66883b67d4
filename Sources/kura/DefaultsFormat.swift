import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraSyncServer

/// How `kura defaults` prints values.
enum DefaultsFormat {
  /// `key = value` lines, sorted by key.
  static func lines(_ values: [String: PreferenceValue]) -> [String] {
    values.keys.sorted().map { key in
      "\(visible(key)) = \(visible(values[key].map(String.init(describing:)) ?? ""))"
    }
  }

  /// A value as `--json` shows it: bytes holding a JSON array or object (a Codable value an app
  /// stored as `Data`, like the seed's `顧客情報保存`) become that JSON; the rest is unchanged.
  static func jsonShape(_ value: PreferenceValue) -> PreferenceValue {
    switch value {
    case .data(let bytes):
      guard let first = bytes.first(where: { !" \t\r\n".utf8.contains($0) }),
        first == UInt8(ascii: "[") || first == UInt8(ascii: "{"),
        let decoded = try? JSONDecoder().decode(PreferenceValue.self, from: bytes)
      else { return value }
      return decoded
    case .array(let values): return .array(values.map(jsonShape))
    case .dictionary(let values): return .dictionary(values.mapValues(jsonShape))
    default: return value
    }
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
    guard let value else { return "\(visible(name)) removed" }
    return "\(visible(name)) = \(visible(value.description))"
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
