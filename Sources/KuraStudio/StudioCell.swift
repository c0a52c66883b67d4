import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncServer

/// One stored value as the page shows it, typed by its property's kind: `{"nil": true}`,
/// `{"text": …}`, `{"int": "…"}` (as text: JavaScript's numbers hold 53 bits), `{"real": "…"}`,
/// `{"bool": …}`, `{"date": seconds since 1970, "stored": …}`, `{"uuid": …}`, `{"url": …}`,
/// `{"json": …}`, `{"bytes": count, "hex": the first 32 bytes}`.
struct StudioCell: Encodable {
  let value: DatabaseValue
  let kind: String

  init(_ value: DatabaseValue, kind: String) {
    self.value = value
    self.kind = kind
  }

  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    switch (value, kind) {
    case (.null, _):
      try container.encode(true, forKey: Key("nil"))
    case (.integer(let number), "bool"):
      try container.encode(number != 0, forKey: Key("bool"))
    case (.integer, "date"), (.real, "date"), (.blob, "date"):
      let seconds = Self.number(value) ?? .nan
      if seconds.isFinite {
        try container.encode(
          seconds + Date.timeIntervalBetween1970AndReferenceDate, forKey: Key("date"))
      } else {
        try container.encode(String(seconds), forKey: Key("real"))
      }
      try container.encode(
        "\(String(seconds)) seconds since 2001-01-01T00:00:00Z (\(Self.iso(seconds)))",
        forKey: Key("stored"))
    case (.integer(let number), _):
      try container.encode(String(number), forKey: Key("int"))
    case (.real, _), (.blob, "real"):
      try container.encode(String(Self.number(value) ?? .nan), forKey: Key("real"))
    case (.text(let text), "uuid"):
      try container.encode(text, forKey: Key("uuid"))
    case (.text(let text), "url"):
      try container.encode(text, forKey: Key("url"))
    case (.text(let text), "json"):
      try container.encode(text, forKey: Key("json"))
    case (.text(let text), _):
      try container.encode(text, forKey: Key("text"))
    case (.blob(let data), _):
      try container.encode(data.count, forKey: Key("bytes"))
      try container.encode(
        data.prefix(32).map { String(format: "%02x", $0) }.joined(), forKey: Key("hex"))
    }
  }

  /// The number a REAL column holds (its `-0.0` is stored as an exact blob of 8 bytes).
  static func number(_ value: DatabaseValue) -> Double? { Double(databaseValue: value) }

  /// A date stored as seconds since 2001 in ISO 8601 (UTC), or the number when it is none.
  static func iso(_ seconds: Double) -> String {
    guard seconds.isFinite else { return String(seconds) }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
  }
}
