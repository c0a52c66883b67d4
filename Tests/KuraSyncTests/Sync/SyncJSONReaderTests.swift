import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraSync
import KuraSyncCore
import KuraSyncServer
import KuraTestSupport
import Testing

@testable import Kura

/// The sync protocol's fast JSON reader against Foundation's `JSONDecoder`: on every body it
/// reads it must give what `JSONDecoder` gives, and it must read none that `JSONDecoder`
/// refuses (damaged bodies included); the protocol's own bodies it must read itself.
@Suite("Sync JSON reader")
struct SyncJSONReaderTests {
  private static let texts = [
    "", "a", "Kyoto", "日本", "e\u{301}", "\u{1F1EF}\u{1F1F5}", "quote \" and \\ back", "tab\t",
    "line\nbreak", "\u{0}nul", "\u{7F}", "/slash", "\u{2028}", "x\u{10FFFF}",
  ]

  private static func uuid(_ random: inout SeededGenerator) -> UUID {
    let (a, b) = (random.next(), random.next())
    return withUnsafeBytes(of: (a, b)) { UUID(uuid: $0.load(as: uuid_t.self)) }
  }

  /// One of `options` (not empty).
  private static func pick<T>(_ options: [T], _ random: inout SeededGenerator) -> T {
    options[Int.random(in: options.indices, using: &random)]
  }

  private static func change(_ random: inout SeededGenerator) -> SyncChange {
    let stamp = SyncStamp(
      wall: random.next() >> 16, counter: UInt16(truncatingIfNeeded: random.next()),
      replica: uuid(&random))
    let model = pick(["Trip", "Wish", "M\u{E9}"], &random)
    let id = pick(texts.filter { !$0.isEmpty }, &random)
    let incarnation = Int64.random(in: 1...Int64.max, using: &random)
    if Int.random(in: 0..<6, using: &random) == 0 {
      return .delete(model, id: id, incarnation: incarnation, stamp: stamp)
    }
    let value: DatabaseValue
    switch Int.random(in: 0..<5, using: &random) {
    case 0: value = .null
    case 1: value = .integer(Int64(bitPattern: random.next()))
    case 2: value = .real(Double(bitPattern: random.next()))
    case 3: value = .text(pick(texts, &random))
    default:
      let count = Int.random(in: 0..<9, using: &random)
      value = .blob(Data((0..<count).map { UInt8(truncatingIfNeeded: $0 * 37) }))
    }
    return .set(
      model, id: id, incarnation: incarnation,
      property: pick(["name", "día", "p"], &random), to: value, stamp: stamp)
  }

  private static func page(_ random: inout SeededGenerator) -> SyncPullResponse {
    let saves = (0..<Int.random(in: 0..<4, using: &random)).map { index in
      SyncLoggedSave(
        position: Int64(index + 1), replica: SyncStamp.hex(uuid(&random)),
        sequence: Int64(index + 7),
        changes: (0..<Int.random(in: 0..<4, using: &random)).map { _ in change(&random) })
    }
    return SyncPullResponse(
      saves: saves, head: Int64(saves.count + 3),
      longPoll: pick([nil, true, false], &random),
      last: saves.last.map(\.position))
  }

  private static func decoded(_ data: Data) -> SyncPullResponse? {
    try? JSONDecoder().decode(SyncPullResponse.self, from: data)
  }

  @Test func theProtocolsOwnBodiesAreReadFastAndAsJSONDecoderReadsThem() throws {
    var random = SeededGenerator(seed: 24)
    let encoders = [JSONEncoder(), JSONEncoder()]
    encoders[0].outputFormatting = .sortedKeys
    encoders[1].outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
    for _ in 0..<300 {
      let page = Self.page(&random)
      for encoder in encoders {
        let body = try encoder.encode(page)
        let fast = try #require(
          SyncJSONReader.readPage(body), "\(String(decoding: body, as: UTF8.self))")
        #expect(fast == page)
        #expect(fast == Self.decoded(body))
        let changes = try encoder.encode(page.saves.flatMap(\.changes))
        #expect(SyncJSONReader.readChanges(changes) == page.saves.flatMap(\.changes))
      }
    }
    // The server's page (spliced text, its own member order) is read fast too.
    let server = Data(
      (#"{"head":2,"last":2,"longPoll":true,"saves":[{"changes":[{"id":"t1","incarnation":1,"#
        + #""model":"Trip","property":"name","stamp":"0000000003e8-0000-"#
        + #"09090304050607080910111213141516","value":{"text":"Kyoto"}}],"position":2,"#
        + #""replica":"09090304050607080910111213141516","sequence":1}]}"#).utf8)
    let fast = try #require(SyncJSONReader.readPage(server))
    #expect(fast == Self.decoded(server))
    #expect(fast.saves.first?.changes.first?.value == .text("Kyoto"))
  }

  @Test func bodiesOutOfTheUsualShapeAgreeWithJSONDecoder() throws {
    let change =
      #"{"model":"Trip","id":"t","incarnation":1,"stamp":"0000000003e8-0000-09090304050607080910111213141516""#
    let shapes: [(body: String, readFast: Bool)] = [
      // Unknown members, escaped keys and texts, whitespace: read, as JSONDecoder reads them.
      (
        #"[\#(change),"property":"p","value":{"text":"a\u00e9\ud83d\ude00\/"},"x":[1,{"y":null}]}]"#,
        true
      ),
      (
        #" [ \#(change) , "pro\u0070erty" : "p" , "value" : null ] "#.replacingOccurrences(
          of: "] ", with: "} ] "), true
      ),
      (#"[\#(change),"deleted":true}]"#, true),
      (#"[\#(change),"deleted":false,"property":"p","value":{"integer":"-42"}}]"#, true),
      (#"[\#(change),"deleted":true,"property":7}]"#, false),
      // What the fast path leaves to JSONDecoder: it decides, and both agree.
      (#"[\#(change),"property":"p","value":{"text":"a"},"value":null}]"#, false),
      (#"[\#(change),"deleted":null,"property":"p","value":null}]"#, false),
      (#"[\#(change),"property":"p","value":{"text":"a","blob":""}}]"#, false),
      (#"[\#(change),"property":"p","value":{}}]"#, false),
      (#"[\#(change),"property":"p"}]"#, false),
      (#"[\#(change),"property":"","value":null}]"#, false),
      (#"[\#(change),"property":"p","value":{"real":"1"}}]"#, false),
      (#"[\#(change),"property":"p","value":{"blob":"!!"}}]"#, false),
      (#"[\#(change),"property":"p","value":{"integer":"9223372036854775808"}}]"#, false),
      (#"[\#(change),"property":"p","value":null,"x":01}]"#, false),
      (#"[\#(change),"property":"p","value":null,"x":1.}]"#, false),
      (#"[\#(change),"property":"p","value":null}"#, false),
      (#"[\#(change),"property":"p","value":null}] x"#, false),
      (#"[\#(change),"property":"p","value":"\ud800"}]"#, false),
      (
        change.replacingOccurrences(of: #""incarnation":1"#, with: #""incarnation":1.0"#)
          + #","property":"p","value":null}"#, false
      ),
      (
        change.replacingOccurrences(of: #""incarnation":1"#, with: #""incarnation":-0"#)
          + #","property":"p","value":null}"#, false
      ),
    ]
    for (body, readFast) in shapes {
      let data = Data(body.utf8)
      let fast = SyncJSONReader.readChanges(data)
      let slow = try? JSONDecoder().decode([SyncChange].self, from: data)
      #expect((fast != nil) == readFast, "\(body)")
      if let fast { #expect(fast == slow, "\(body)") }
      // Whatever the path, the public entry agrees with JSONDecoder.
      #expect((try? SyncJSONReader.decodeChanges(data)) == slow, "\(body)")
    }
    // A raw control character, and bytes that are not UTF-8, are left to JSONDecoder.
    var raw = Data(#"[\#(change),"property":"p","value":{"text":""#.utf8)
    raw.append(contentsOf: [0x0A, 0x22, 0x7D, 0x7D, 0x5D])
    #expect(SyncJSONReader.readChanges(raw) == nil)
    var invalid = Data(#"[\#(change),"property":"p","value":{"text":""#.utf8)
    invalid.append(contentsOf: [0xC3, 0x28, 0x22, 0x7D, 0x7D, 0x5D])
    #expect(SyncJSONReader.readChanges(invalid) == nil)
    #expect((try? SyncJSONReader.decodeChanges(invalid)) == nil)
  }

  @Test func aDamagedBodyIsNeverReadAsSomethingJSONDecoderRefusesOrReadsOtherwise() throws {
    var random = SeededGenerator(seed: 2_024)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var refused = 0
    for _ in 0..<400 {
      var body = [UInt8](try encoder.encode(Self.page(&random)))
      guard !body.isEmpty else { continue }
      // Truncated, a byte changed, a byte inserted, or a byte dropped.
      let at = Int.random(in: 0..<body.count, using: &random)
      switch Int.random(in: 0..<4, using: &random) {
      case 0: body.removeSubrange(at...)
      case 1: body[at] = UInt8.random(in: 0...255, using: &random)
      case 2: body.insert(Self.pick(Array(#"{}[],:"\0-e."#.utf8), &random), at: at)
      default: body.remove(at: at)
      }
      let data = Data(body)
      let slow = Self.decoded(data)
      if slow == nil { refused += 1 }
      if let fast = SyncJSONReader.readPage(data) {
        #expect(fast == slow, "\(String(decoding: data, as: UTF8.self)) \(Array(data))")
      }
      #expect((try? SyncJSONReader.decodePage(data)) == slow)
    }
    // The damage is real: most damaged bodies are refused.
    #expect(refused > 200)
  }
}
