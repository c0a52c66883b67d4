import Foundation
import Kura

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Parses a command line against a ``Command`` tree, prints help, runs the action and maps errors
/// to exit codes: 0 on success, 64 for a ``UsageError``, a refused identifier (an app, suite or
/// scene name the library won't use) or a PostgreSQL store location with a value libpq refuses
/// (`sslmode=bogus`, port `99999`), the given status for ``ExitCode``, 1 for any other error
/// (printed as `<tool>: error: <message>`).
///
/// For example:
///
/// ```swift
/// let root = Command(name: "kura", abstract: "Kura's tool.", subcommands: [paths, version])
/// CommandLineTool.main(root)
/// ```
public enum CommandLineTool {
  /// What parsing produced: an invocation to run, or help text to print.
  public enum Parsed: Sendable {
    /// Run this command with this invocation.
    case run(Command, Invocation)
    /// Print this help text and exit 0.
    case help(String)
  }

  /// Runs the tool and exits the process.
  ///
  /// For example: `CommandLineTool.main(root)`.
  ///
  /// - Parameters:
  ///   - root: The tool's top command.
  ///   - arguments: The words after the executable's name.
  public static func main(
    _ root: Command, arguments: [String] = Array(CommandLine.arguments.dropFirst())
  )
    -> Never
  {
    exit(run(root, arguments: arguments))
  }

  /// Runs the tool and returns its exit status (for tests and embedding).
  ///
  /// For example: `let status = CommandLineTool.run(root, arguments: ["paths"])`.
  ///
  /// - Parameters:
  ///   - root: The tool's top command.
  ///   - arguments: The words after the executable's name.
  /// - Returns: The exit status.
  public static func run(_ root: Command, arguments: [String]) -> Int32 {
    var commandPath = root.name
    do {
      switch try parse(root, arguments: arguments) {
      case .help(let text):
        print(text)
        return 0
      case .run(let command, let invocation):
        guard let action = command.run else { return 0 }
        commandPath = invocation.commandPath
        try action(invocation)
        fflush(nil)
        return 0
      }
    } catch let error as UsageError {
      fflush(nil)
      printError("\(root.name): error: \(visibleLines(redacted("\(error)", arguments)))")
      return 64
    } catch let error as ExitCode {
      fflush(nil)
      return error.status
    } catch {
      fflush(nil)
      // A refused identifier (an app, suite or scene name) is a bad argument: 64, with the
      // pointer to the command's help.
      let usage =
        refusesIdentifier(error, givenIn: arguments) || isInvalidStoreLocation(error)
      let message = usage ? "\(UsageError("\(error)", command: commandPath))" : "\(error)"
      printError("\(root.name): error: \(visibleLines(redacted(message, arguments)))")
      return usage ? 64 : 1
    }
  }

  /// Whether `error` refuses an identifier (empty, with `/` or `..`) that is one of the command
  /// line's words (not one from the environment, such as `KURA_APP_ID`).
  static func refusesIdentifier(_ error: any Error, givenIn arguments: [String]) -> Bool {
    let given: String?
    switch error {
    case let error as LocationError where error.code == .invalidIdentifier:
      given = error.identifier
    case let error as PreferencesError where error.code == .invalidSuiteName:
      given = error.suite
    case let error as PreferencesError where error.code == .invalidSceneIdentifier:
      given = error.sceneID
    default: return false
    }
    guard let identifier = given else { return false }
    return arguments.contains { $0 == identifier || $0.hasSuffix("=" + identifier) }
  }

  /// Whether `error` refuses a PostgreSQL connection string's value that libpq would only refuse
  /// when connecting (an `sslmode` outside its choices, a port outside 1–65535): a mistake in
  /// the `--store` argument or `KURA_STORE_URL`, not a server that can't be reached.
  static func isInvalidStoreLocation(_ error: any Error) -> Bool {
    let refusal =
      error as? any LocationInputError ?? (error as? StoreError)?.underlying
      as? any LocationInputError
    return refusal?.isInvalidLocationInput == true
  }

  /// `message` without any password the command line or `KURA_STORE_URL` holds (a store URL
  /// such as `postgresql://alice:secret@db/app`): an error may quote what it was given.
  static func redacted(_ message: String, _ arguments: [String]) -> String {
    var inputs = arguments
    if let store = ProcessInfo.processInfo.environment["KURA_STORE_URL"] {
      inputs.append(store)
    }
    return inputs.reduce(message) { SecretRedaction.redacting($0, secretsOf: $1) }
  }

  /// Writes a line to standard error.
  ///
  /// For example: `CommandLineTool.printError("warikan: warning: …")`.
  ///
  /// - Parameter line: The text.
  public static func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Parses words against a command tree without running anything.
  ///
  /// For example:
  ///
  /// ```swift
  /// if case .run(let command, let invocation) = try CommandLineTool.parse(root, arguments: ["a"]) {
  ///   …
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - root: The tool's top command.
  ///   - arguments: The words after the executable's name.
  /// - Returns: What to do.
  /// - Throws: ``UsageError`` quoting the bad word.
  public static func parse(_ root: Command, arguments: [String]) throws -> Parsed {
    if arguments.first == "--version" { return .help("\(root.name) \(KuraLibrary.version)") }
    var command = root
    var path = [root.name]
    var index = 0
    // Options given before the subcommand (`students --store x list`), read with the final
    // command's own.
    var carried: [String] = []
    // Walk down the subcommands.
    while index < arguments.count, !command.subcommands.isEmpty {
      let word = arguments[index]
      if word == "--help" || word == "-h" || word == "help" && command.run == nil {
        if word == "help", index + 1 < arguments.count,
          let sub = command.subcommands.first(where: { $0.name == arguments[index + 1] })
        {
          return .help(help(for: sub, path: path + [sub.name]))
        }
        return .help(help(for: command, path: path))
      }
      if word.hasPrefix("-") {
        guard let count = carriedWordCount(arguments, at: index, below: command) else { break }
        carried += arguments[index..<(index + count)]
        index += count
        continue
      }
      guard let sub = command.subcommands.first(where: { $0.name == word }) else {
        // A command with an action takes the word as an argument, if it takes arguments.
        if command.run != nil && !command.arguments.isEmpty { break }
        let names = command.subcommands.map(\.name)
        throw UsageError(
          "Unknown command `\(word)` for `\(path.joined(separator: " "))`."
            + suggestion(for: word, among: names, prefix: "")
            + " Commands: \(names.joined(separator: ", ")).",
          command: path.joined(separator: " "))
      }
      command = sub
      path.append(word)
      index += 1
    }
    let commandPath = path.joined(separator: " ")
    let words = carried + arguments[index...]
    index = 0
    if command.run == nil {
      if index < words.count, words[index] == "--help" || words[index] == "-h" {
        return .help(help(for: command, path: path))
      }
      let names = command.subcommands.map(\.name)
      if index < words.count {
        throw UsageError(
          "Unknown option `\(words[index])` for `\(commandPath)`: it needs a command first."
            + " Commands: \(names.joined(separator: ", ")).", command: commandPath)
      }
      throw UsageError(
        "`\(commandPath)` needs a command: \(names.joined(separator: ", ")).", command: commandPath)
    }

    var positionalWords: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []
    var onlyPositional = false
    let optionNames =
      command.options.map { "--" + $0.name } + command.flags.map { "--" + $0.name }
      + (command.supportsJSON ? ["--json"] : []) + ["--help"]
    while index < words.count {
      let word = words[index]
      index += 1
      if onlyPositional || !word.hasPrefix("-") || word == "-" || isNegativeNumber(word) {
        positionalWords.append(word)
        continue
      }
      if word == "--" {
        onlyPositional = true
        continue
      }
      if word == "--help" || word == "-h" { return .help(help(for: command, path: path)) }
      var name: String
      var inlineValue: String?
      if word.hasPrefix("--") {
        name = String(word.dropFirst(2))
        if let equals = name.firstIndex(of: "=") {
          inlineValue = String(name[name.index(after: equals)...])
          name = String(name[..<equals])
        }
      } else {
        let letter = word.dropFirst()
        guard letter.count == 1, let character = letter.first else {
          throw UsageError(
            "Unknown option `\(word)` for `\(commandPath)`."
              + suggestion(for: word, among: optionNames, prefix: ""), command: commandPath)
        }
        if let option = command.options.first(where: { $0.short == character }) {
          name = option.name
        } else if let flag = command.flags.first(where: { $0.short == character }) {
          name = flag.name
        } else {
          throw UsageError("Unknown option `\(word)` for `\(commandPath)`.", command: commandPath)
        }
      }
      if command.options.contains(where: { $0.name == name }) {
        if let inlineValue {
          options[name] = inlineValue
        } else if index < words.count {
          options[name] = words[index]
          index += 1
        } else {
          throw UsageError("Option `--\(name)` needs a value.", command: commandPath)
        }
      } else if command.flags.contains(where: { $0.name == name })
        || (name == "json" && command.supportsJSON)
      {
        if inlineValue != nil {
          throw UsageError("Flag `--\(name)` takes no value.", command: commandPath)
        }
        flags.insert(name)
      } else {
        throw UsageError(
          "Unknown option `\(word)` for `\(commandPath)`."
            + suggestion(for: "--" + name, among: optionNames, prefix: ""), command: commandPath)
      }
    }

    var positional: [String: [String]] = [:]
    var remaining = positionalWords[...]
    for argument in command.arguments {
      if argument.isRepeating {
        positional[argument.name] = Array(remaining)
        if remaining.isEmpty && !argument.isOptional {
          throw UsageError("Missing argument <\(argument.name)>.", command: commandPath)
        }
        remaining = []
      } else if let word = remaining.first {
        positional[argument.name] = [word]
        remaining = remaining.dropFirst()
      } else if !argument.isOptional {
        throw UsageError(
          "Missing argument <\(argument.name)> (\(argument.help.lowercasedFirst.withoutFinalPeriod)).",
          command: commandPath)
      }
    }
    if let extra = remaining.first {
      throw UsageError("Unexpected argument `\(extra)` for `\(commandPath)`.", command: commandPath)
    }
    return .run(
      command,
      Invocation(commandPath: commandPath, positional: positional, options: options, flags: flags))
  }

  /// How many words at `index` (1, or 2 with the value) are an option or flag that `command`
  /// or one of its subcommands declares, to be read once the subcommand is known; `nil` when
  /// the word is none of theirs (or its value is missing).
  private static func carriedWordCount(_ arguments: [String], at index: Int, below command: Command)
    -> Int?
  {
    let word = arguments[index]
    guard word != "--", !isNegativeNumber(word) else { return nil }
    let takesValue: Bool?
    var hasInlineValue = false
    if word.hasPrefix("--") {
      let name = String(word.dropFirst(2).prefix { $0 != "=" })
      hasInlineValue = word.contains("=")
      takesValue = declares(command, { $0.name == name }, { $0.name == name }, json: name == "json")
    } else if word.count == 2, let letter = word.last {
      takesValue = declares(command, { $0.short == letter }, { $0.short == letter }, json: false)
    } else {
      takesValue = nil
    }
    guard let takesValue else { return nil }
    if !takesValue || hasInlineValue { return 1 }
    return index + 1 < arguments.count ? 2 : nil
  }

  /// Whether `command` or a command below it declares a matching option (`true`: it takes a
  /// value) or flag (`false`); `nil` when none does.
  private static func declares(
    _ command: Command, _ option: (Option) -> Bool, _ flag: (Flag) -> Bool, json: Bool
  ) -> Bool? {
    if command.options.contains(where: option) { return true }
    if command.flags.contains(where: flag) || json && command.supportsJSON { return false }
    for sub in command.subcommands {
      if let found = declares(sub, option, flag, json: json) { return found }
    }
    return nil
  }

  private static func isNegativeNumber(_ word: String) -> Bool {
    word.count > 1 && word.hasPrefix("-") && Double(word.dropFirst()) != nil
  }

  /// " Did you mean `x`?" when a name is close to the word (edit distance ≤ 2), else "".
  static func suggestion(for word: String, among names: [String], prefix: String) -> String {
    let scored = names.map { ($0, editDistance(word, $0)) }.filter { $0.1 <= 2 }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
    return " Did you mean `\(prefix)\(best.0)`?"
  }

  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
      var current = [i] + Array(repeating: 0, count: b.count)
      for j in 1...b.count {
        current[j] = min(
          previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }

  /// The help text of a command.
  ///
  /// For example: `print(CommandLineTool.help(for: root, path: ["kura"]))`.
  ///
  /// - Parameters:
  ///   - command: The command.
  ///   - path: Its path from the root, such as `["kura", "paths"]`.
  /// - Returns: Usage, description, arguments, options and subcommands.
  public static func help(for command: Command, path: [String]) -> String {
    var lines: [String] = []
    lines.append("OVERVIEW: \(command.abstract)")
    if !command.discussion.isEmpty { lines += ["", command.discussion] }
    var usage = "USAGE: " + path.joined(separator: " ")
    if !command.subcommands.isEmpty && command.run == nil {
      usage += " <command>"
    } else {
      if !command.subcommands.isEmpty { usage += " [<command>]" }
      if !command.options.isEmpty || !command.flags.isEmpty || command.supportsJSON {
        usage += " [options]"
      }
      for argument in command.arguments {
        var shown = "<\(argument.name)>"
        if argument.isRepeating { shown += " …" }
        if argument.isOptional { shown = "[\(shown)]" }
        usage += " " + shown
      }
    }
    lines += ["", usage]
    if !command.arguments.isEmpty {
      lines += ["", "ARGUMENTS:"]
      for argument in command.arguments {
        lines.append(row("<\(argument.name)>", argument.help))
      }
    }
    var optionRows: [String] = []
    for option in command.options {
      let short = option.short.map { "-\($0), " } ?? ""
      optionRows.append(row("\(short)--\(option.name) <\(option.valueName)>", option.help))
    }
    for flag in command.flags {
      let short = flag.short.map { "-\($0), " } ?? ""
      optionRows.append(row("\(short)--\(flag.name)", flag.help))
    }
    if command.supportsJSON { optionRows.append(row("--json", "Print JSON instead of text.")) }
    optionRows.append(row("-h, --help", "Show help information."))
    if path.count == 1 { optionRows.append(row("--version", "Show the version.")) }
    lines += ["", "OPTIONS:"] + optionRows
    if !command.subcommands.isEmpty {
      lines += ["", "COMMANDS:"]
      for sub in command.subcommands { lines.append(row(sub.name, sub.abstract)) }
      lines += [
        "", "  See '\(path.joined(separator: " ")) <command> --help' for a command's help.",
      ]
    }
    lines += [
      "", "EXIT STATUS:", row("0", "Success."),
      row("1", "The command failed (a file, a store, a missing item); the message says why."),
      row("64", "The command was called wrongly (a usage error or a bad value)."),
    ]
    return lines.joined(separator: "\n")
  }

  private static func row(_ left: String, _ right: String) -> String {
    let padded =
      left.count < 24 ? left.padding(toLength: 24, withPad: " ", startingAt: 0) : left + " "
    return "  " + padded + right
  }
}

extension String {
  fileprivate var lowercasedFirst: String {
    guard let first else { return self }
    return first.lowercased() + dropFirst()
  }

  fileprivate var withoutFinalPeriod: String { hasSuffix(".") ? String(dropLast()) : self }
}
