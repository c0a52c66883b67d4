import Foundation
import KuraBase
import KuraStore

/// A pull's answer as the server writes it: each logged save's changes spliced in as the JSON
/// the log keeps, and the page starting `{"head":H,"last":P,` (`last` left out of an empty
/// page), so a replica staging it reads those two numbers without parsing the page
/// (`SyncInitialSync.PageSummary`). The server's pulls write with it, and so does
/// kura-bench's `SyncPullBenchmark`, so the benchmark stages what a server sends.
package struct SyncPageWriter {
  private var body = Data()
  /// How many saves the page holds.
  package private(set) var saves = 0
  /// The last save's position, when the page holds one.
  package private(set) var last: Int64?

  package init() { body.reserveCapacity(1 << 16) }

  /// Adds a save: its changes' JSON text, its position in the log, its replica and number.
  package mutating func append(changes: String, position: Int64, replica: String, sequence: Int64) {
    if saves > 0 { body.append(UInt8(ascii: ",")) }
    body.append(contentsOf: #"{"changes":"#.utf8)
    body.append(contentsOf: changes.utf8)
    let tail = #","position":\#(position),"replica":"\#(replica)","sequence":"#
    body.append(contentsOf: (tail + "\(sequence)}").utf8)
    saves += 1
    last = position
  }

  /// The page, for a space whose log's head is `head`.
  package func page(head: Int64) -> Data {
    let lastMember = last.map { #""last":\#($0),"# } ?? ""
    return Data(#"{"head":\#(head),\#(lastMember)"longPoll":true,"saves":["#.utf8) + body
      + Data("]}".utf8)
  }
}
