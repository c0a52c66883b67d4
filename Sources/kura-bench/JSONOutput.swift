import Foundation
import Synchronization

// `kura-bench … --json`: every line of output is one JSON object (JSON Lines). A measured
// comparison carries its exact figures (`kura_ns`, `baseline_ns`: medians in nanoseconds, the
// ratio, the target); every other line is a note with its text; a `--profile` run says how many
// operations its region ran.

/// Whether `--json` was given.
let outputsJSON = CommandLine.arguments.dropFirst().contains("--json")

/// The suite running now, named in each JSON line.
let runningSuite = Mutex<String>("")

/// One value of a JSON line.
enum JSONValue: Encodable {
  case string(String)
  case integer(Int)
  case number(Double)
  case bool(Bool)
  case null

  func encode(to encoder: Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let value): try container.encode(value)
    case .integer(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .bool(let value): try container.encode(value)
    case .null: try container.encodeNil()
    }
  }
}

/// Writes one JSON line: `fields` with the running suite's name.
func emitJSON(_ fields: [String: JSONValue]) {
  var fields = fields
  let suite = runningSuite.withLock { $0 }
  if fields["suite"] == nil, !suite.isEmpty { fields["suite"] = .string(suite) }
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  let data = (try? encoder.encode(fields)) ?? Data("{}".utf8)
  FileHandle.standardOutput.write(data + Data("\n".utf8))
}

/// A duration in whole nanoseconds.
func nanoseconds(_ duration: Duration) -> Int {
  Int(duration.components.seconds) * 1_000_000_000
    + Int(duration.components.attoseconds / 1_000_000_000)
}

/// Prints a line of text, or with `--json` writes it as a note (each line of it); the suites
/// print through this rather than the standard library's `print`.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  let text = items.map { "\($0)" }.joined(separator: separator)
  if outputsJSON {
    for line in text.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
      emitJSON(["note": .string(String(line))])
    }
  } else {
    Swift.print(text, terminator: terminator)
  }
}
