import Foundation
import KuraBase

/// Decodes a document's bytes, turning every failure into a ``DocumentError`` that names the
/// line, column and reason.
package enum DocumentDecoding {
  /// The encoder every document uses: compact JSON, `/` not escaped, keys sorted (so a file's
  /// bytes depend only on its value; the platform encoder's own key order varies from run to
  /// run on Linux).
  package static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    return encoder
  }

  /// Decodes `data` as `Value`.
  ///
  /// - Throws: ``DocumentError`` with code ``DocumentError/Code/damaged``.
  package static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, file: URL)
    throws
    -> Value
  {
    if data.isEmpty {
      throw DocumentError(.damaged, file: file, reason: "the file is empty (0 bytes), not JSON")
    }
    do {
      return try JSONDecoder().decode(Value.self, from: data)
    } catch let error as DecodingError {
      let bytes = [UInt8](data)
      if let (offset, reason) = JSONSyntax.firstError(in: bytes) {
        let (line, column) = position(of: offset, in: bytes)
        throw DocumentError(
          .damaged, file: file, line: line, column: column, reason: reason, underlying: error)
      }
      if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
        let (offset, number) = numberThatDoesNotFit(Value.self, in: bytes)
      {
        // Foundation on Linux reports such a number as "not valid JSON", with no position.
        let (line, column) = position(of: offset, in: bytes)
        throw DocumentError(
          .damaged, file: file, line: line, column: column,
          reason: "the number `\(number)` does not fit the value expected there (a whole number"
            + " without a fraction, or one too large)",
          underlying: error)
      }
      throw DocumentError(.damaged, file: file, reason: describe(error), underlying: error)
    } catch {
      throw DocumentError(.damaged, file: file, reason: "\(error)", underlying: error)
    }
  }

  /// The first number in well-formed JSON whose replacement by `0` changes how decoding fails:
  /// the number the decoder could not store (a fraction or an overflow where a whole number is
  /// expected). Only numbers that are not whole 64-bit integers are tried, at most 32 of them.
  package static func numberThatDoesNotFit<Value: Decodable>(_ type: Value.Type, in bytes: [UInt8])
    -> (offset: Int, text: String)?
  {
    guard let ranges = JSONSyntax.numberRanges(in: bytes) else { return nil }
    let suspects = ranges.lazy.filter { range in
      Int64(String(decoding: bytes[range], as: UTF8.self)) == nil
    }.prefix(32)
    for range in suspects {
      var probe = bytes
      probe.replaceSubrange(
        range, with: [UInt8(ascii: "0")] + Array(repeating: 0x20, count: range.count - 1))
      let outcome = Result { try JSONDecoder().decode(Value.self, from: Data(probe)) }
      if case .failure(DecodingError.dataCorrupted(let context)) = outcome,
        context.codingPath.isEmpty
      {
        continue  // The same failure: this number was not the one.
      }
      // It decodes with `0` in its place, or fails elsewhere: this number was the one.
      return (range.lowerBound, String(decoding: bytes[range], as: UTF8.self))
    }
    return nil
  }

  /// The 1-based line and column (in characters) of a byte offset.
  package static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    var line = 1
    var lineStart = 0
    for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
      line += 1
      lineStart = index + 1
    }
    let prefix = bytes[lineStart..<min(offset, bytes.count)]
    let column = String(decoding: prefix, as: UTF8.self).unicodeScalars.count + 1
    return (line, column)
  }

  /// A decoding error in words: where in the value, and what was wrong.
  package static func describe(_ error: DecodingError) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
      if codingPath.isEmpty { return "the top level" }
      var text = ""
      for key in codingPath {
        if let index = key.intValue {
          text += "[\(index)]"
        } else {
          text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
      }
      return "`\(text)`"
    }
    func sentence(_ text: String) -> String {
      var text = text
      while text.hasSuffix(".") { text.removeLast() }
      guard let first = text.first else { return text }
      return first.lowercased() + text.dropFirst()
    }
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context),
      .dataCorrupted(let context):
      return "the JSON has the wrong shape at \(path(context.codingPath)): "
        + sentence(context.debugDescription)
    case .keyNotFound(let key, let context):
      return "the JSON has the wrong shape at \(path(context.codingPath)): the key "
        + "`\(key.stringValue)` is missing"
    @unknown default:
      return sentence("\(error)")
    }
  }
}
