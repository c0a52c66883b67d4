import Foundation
import KuraBase
import KuraStore

/// One stored column value as it travels between replicas and the sync server, losslessly:
/// integers as decimal text (JSON numbers lose digits past 2^53 in many readers), doubles by
/// their bit pattern, data as base64.
///
/// On the wire it is a JSON object with one member naming its kind: `{"integer":"42"}`,
/// `{"real":"400921fb54442d18"}`, `{"text":"Kyoto"}`, `{"blob":"AAE="}`, or `null`.
package enum SyncValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob(Data)

  /// The value as SQLite stores it.
  package init(_ value: DatabaseValue) {
    switch value {
    case .null: self = .null
    case .integer(let integer): self = .integer(integer)
    case .real(let real): self = .real(real)
    case .text(let text): self = .text(text)
    case .blob(let data): self = .blob(data)
    }
  }

  /// The value to bind in SQL.
  package var databaseValue: DatabaseValue {
    switch self {
    case .null: return .null
    case .integer(let integer): return .integer(integer)
    case .real(let real): return .real(real)
    case .text(let text): return .text(text)
    case .blob(let data): return .blob(data)
    }
  }

  package static func == (left: SyncValue, right: SyncValue) -> Bool {
    switch (left, right) {
    case (.null, .null): return true
    case (.integer(let a), .integer(let b)): return a == b
    // By bit pattern: -0.0 and 0.0 differ, a NaN equals itself.
    case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
    case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8)
    case (.blob(let a), .blob(let b)): return a == b
    default: return false
    }
  }

  package func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0)
    case .integer(let integer): hasher.combine(integer)
    case .real(let real): hasher.combine(real.bitPattern)
    case .text(let text): hasher.combine(Array(text.utf8))
    case .blob(let data): hasher.combine(data)
    }
  }
}

extension SyncValue: Codable {
  private enum Kind: String, CodingKey { case integer, real, text, blob }

  package init(from decoder: any Decoder) throws {
    if let single = try? decoder.singleValueContainer(), single.decodeNil() {
      self = .null
      return
    }
    let container = try decoder.container(keyedBy: Kind.self)
    guard container.allKeys.count == 1, let kind = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "a value is null or an object with one of integer, real, text, blob"))
    }
    let text = try container.decode(String.self, forKey: kind)
    switch kind {
    case .integer:
      guard let integer = Int64(text) else { throw Self.bad(decoder, "an integer's digits") }
      self = .integer(integer)
    case .real:
      guard text.utf8.count == 16, let bits = UInt64(text, radix: 16) else {
        throw Self.bad(decoder, "16 hex digits (the double's bits)")
      }
      self = .real(Double(bitPattern: bits))
    case .text:
      self = .text(text)
    case .blob:
      guard let data = Data(base64Encoded: text) else { throw Self.bad(decoder, "base64") }
      self = .blob(data)
    }
  }

  package func encode(to encoder: any Encoder) throws {
    if case .null = self {
      var single = encoder.singleValueContainer()
      try single.encodeNil()
      return
    }
    var container = encoder.container(keyedBy: Kind.self)
    switch self {
    case .null: break
    case .integer(let integer): try container.encode(String(integer), forKey: .integer)
    case .real(let real):
      let hex = String(real.bitPattern, radix: 16)
      try container.encode(String(repeating: "0", count: 16 - hex.count) + hex, forKey: .real)
    case .text(let text): try container.encode(text, forKey: .text)
    case .blob(let data): try container.encode(data.base64EncodedString(), forKey: .blob)
    }
  }

  private static func bad(_ decoder: any Decoder, _ expected: String) -> DecodingError {
    .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected \(expected)"))
  }
}
