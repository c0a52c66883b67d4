import Foundation

/// The parsed words of one command invocation, with typed access to its arguments and options.
///
/// For example:
///
/// ```swift
/// run: { invocation in
///   let people: Int = try invocation.argument("people")
///   let memo: String? = try invocation.option("memo")
///   if invocation.flag("yes") { … }
///   if invocation.json { try invocation.printJSON(["people": people]) }
/// }
/// ```
public struct Invocation: Sendable {
  /// The command path, such as `warikan split`.
  public let commandPath: String
  let positional: [String: [String]]
  let options: [String: String]
  let flags: Set<String>

  init(
    commandPath: String, positional: [String: [String]], options: [String: String],
    flags: Set<String>
  ) {
    self.commandPath = commandPath
    self.positional = positional
    self.options = options
    self.flags = flags
  }

  /// Whether `--json` was given.
  public var json: Bool { flags.contains("json") }

  /// Whether a flag was given.
  ///
  /// For example: `invocation.flag("yes")`.
  ///
  /// - Parameter name: The flag's long name.
  /// - Returns: `true` when present.
  public func flag(_ name: String) -> Bool { flags.contains(name) }

  /// The raw words given for a positional argument (empty when left out).
  ///
  /// For example: `invocation.words("memo").joined(separator: " ")`.
  ///
  /// - Parameter name: The argument's name.
  /// - Returns: The words.
  public func words(_ name: String) -> [String] { positional[name] ?? [] }

  /// A required positional argument, parsed as `Value`.
  ///
  /// For example: `let people: Int = try invocation.argument("people")`.
  ///
  /// - Parameter name: The argument's name.
  /// - Returns: The value.
  /// - Throws: ``UsageError`` quoting the word when it is missing or does not parse.
  public func argument<Value: ArgumentConvertible>(_ name: String, as type: Value.Type = Value.self)
    throws -> Value
  {
    guard let value: Value = try optionalArgument(name) else {
      throw UsageError("Missing argument <\(name)>.", command: commandPath)
    }
    return value
  }

  /// An optional positional argument, parsed as `Value`; `nil` when left out.
  ///
  /// For example: `let key: String? = try invocation.optionalArgument("key")`.
  ///
  /// - Parameter name: The argument's name.
  /// - Returns: The value or `nil`.
  /// - Throws: ``UsageError`` quoting the word when it does not parse.
  public func optionalArgument<Value: ArgumentConvertible>(
    _ name: String, as type: Value.Type = Value.self
  ) throws -> Value? {
    guard let word = positional[name]?.first else { return nil }
    return try parse(word, as: Value.self, what: "<\(name)>")
  }

  /// An option's value parsed as `Value`; `nil` when not given.
  ///
  /// For example: `let app: String? = try invocation.option("app")`.
  ///
  /// - Parameter name: The option's long name.
  /// - Returns: The value or `nil`.
  /// - Throws: ``UsageError`` quoting the value when it does not parse.
  public func option<Value: ArgumentConvertible>(_ name: String, as type: Value.Type = Value.self)
    throws -> Value?
  {
    guard let word = options[name] else { return nil }
    return try parse(word, as: Value.self, what: "--\(name)")
  }

  /// A required whole-number argument within a range; the error for a word that is not a
  /// whole number in it states that range (not the range of `Int`).
  ///
  /// For example: `let people = try invocation.argument("people", in: 1...)`.
  ///
  /// - Parameters:
  ///   - name: The argument's name.
  ///   - range: The values that make sense, such as `1...`.
  /// - Returns: The value.
  /// - Throws: ``UsageError`` quoting the word and the range.
  public func argument(_ name: String, in range: PartialRangeFrom<Int>) throws -> Int {
    guard let word = positional[name]?.first else {
      throw UsageError("Missing argument <\(name)>.", command: commandPath)
    }
    return try integer(word, in: range.lowerBound...Int.max, what: "<\(name)>")
  }

  /// A required whole-number argument within a closed range, such as `1...100_000`; the error
  /// for a word that is not a whole number in it states that range.
  ///
  /// For example: `let people = try invocation.argument("people", in: 1...100_000)`.
  ///
  /// - Parameters:
  ///   - name: The argument's name.
  ///   - range: The values that make sense.
  /// - Returns: The value.
  /// - Throws: ``UsageError`` quoting the word and the range.
  public func argument(_ name: String, in range: ClosedRange<Int>) throws -> Int {
    guard let word = positional[name]?.first else {
      throw UsageError("Missing argument <\(name)>.", command: commandPath)
    }
    return try integer(word, in: range, what: "<\(name)>")
  }

  /// An option's whole-number value within a range; `nil` when not given.
  ///
  /// For example: `let limit = try invocation.option("limit", in: 1...) ?? 10`.
  ///
  /// - Parameters:
  ///   - name: The option's long name.
  ///   - range: The values that make sense.
  /// - Returns: The value or `nil`.
  /// - Throws: ``UsageError`` quoting the value and the range.
  public func option(_ name: String, in range: PartialRangeFrom<Int>) throws -> Int? {
    guard let word = options[name] else { return nil }
    return try integer(word, in: range.lowerBound...Int.max, what: "--\(name)")
  }

  /// Parses a whole number within `range` (full-width digits accepted), or throws a
  /// ``UsageError`` that quotes the word and states the range.
  ///
  /// For example: `try invocation.integer("0", in: 1...Int.max, what: "<people>")` throws
  /// "`0` is not a valid value for <people>: expected a whole number of 1 or more."
  ///
  /// - Parameters:
  ///   - word: The word.
  ///   - range: The values that make sense.
  ///   - what: How to name the input in the message.
  /// - Returns: The value.
  /// - Throws: ``UsageError``.
  public func integer(_ word: String, in range: ClosedRange<Int>, what: String) throws -> Int {
    if let value = Int(argument: word), range.contains(value) { return value }
    let expected: String
    // A whole number too large for any whole-number type is told the whole range.
    let overflows = Int(argument: word) == nil && Int.problem(with: word) != nil
    switch (range.lowerBound, range.upperBound) {
    case (let lower, let upper) where overflows:
      throw UsageError(
        "`\(word)` is not a valid value for \(what): it is out of range; expected a whole number"
          + " from \(grouped(lower)) to \(grouped(upper)).", command: commandPath)
    case (Int.min, Int.max): expected = "a whole number such as 3"
    case (let lower, Int.max): expected = "a whole number of \(grouped(lower)) or more"
    case (Int.min, let upper): expected = "a whole number of \(grouped(upper)) or less"
    case (let lower, let upper):
      expected = "a whole number from \(grouped(lower)) to \(grouped(upper))"
    }
    throw UsageError(
      "`\(word)` is not a valid value for \(what): expected \(expected).", command: commandPath)
  }

  /// Parses a word or throws a ``UsageError`` that quotes it and says what was expected.
  ///
  /// For example: `let n = try invocation.parse("3", as: Int.self, what: "<people>")`.
  ///
  /// - Parameters:
  ///   - word: The word.
  ///   - type: The type to parse.
  ///   - what: How to name the input in the message, such as `<people>`.
  /// - Returns: The value.
  /// - Throws: ``UsageError``.
  public func parse<Value: ArgumentConvertible>(_ word: String, as type: Value.Type, what: String)
    throws -> Value
  {
    guard let value = Value(argument: word) else {
      throw UsageError(
        "`\(word)` is not a valid value for \(what): "
          + (Value.problem(with: word) ?? "expected \(Value.expectation)") + ".",
        command: commandPath)
    }
    return value
  }

  /// Prints a value as pretty, key-sorted JSON on standard output.
  ///
  /// For example: `try invocation.printJSON(entries)`.
  ///
  /// - Parameter value: The value.
  /// - Throws: The encoder's error.
  public func printJSON<Value: Encodable>(_ value: Value) throws {
    print(try Self.jsonString(value))
  }

  /// Encodes a value as pretty, key-sorted JSON text (dates as ISO 8601).
  ///
  /// For example: `let text = try Invocation.jsonString(["a": 1])`.
  ///
  /// - Parameter value: The value.
  /// - Returns: The JSON text.
  /// - Throws: The encoder's error.
  public static func jsonString<Value: Encodable>(_ value: Value) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }
}

/// A bound of a range as a person reads it: `100,000` (with separators from five digits on).
private func grouped(_ value: Int) -> String {
  let digits = String(value.magnitude)
  guard digits.count > 4 else { return String(value) }
  var result = ""
  for (index, digit) in digits.enumerated() {
    if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
    result.append(digit)
  }
  return (value < 0 ? "-" : "") + result
}
