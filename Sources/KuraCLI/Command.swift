import Foundation

/// A command (or subcommand) of a command-line tool: its arguments, options, flags and action.
///
/// For example:
///
/// ```swift
/// let add = Command(
///   name: "add", abstract: "Adds an entry.",
///   arguments: [.init("yen", help: "The amount in yen, such as 2800 or ¥2,800.")],
///   options: [.init("memo", help: "A note.")],
///   run: { invocation in
///     let yen: Int = try invocation.argument("yen")
///     print(yen)
///   })
/// ```
public struct Command: Sendable {
  /// The word that selects this command.
  public var name: String
  /// One sentence shown in the parent's help.
  public var abstract: String
  /// Longer help text, shown under the usage line.
  public var discussion: String
  /// Positional arguments, in order.
  public var arguments: [Argument]
  /// Options that take a value (`--memo text`, `--memo=text`).
  public var options: [Option]
  /// Flags (`--yes`, `-y`).
  public var flags: [Flag]
  /// Whether `--json` is accepted (it asks for JSON output).
  public var supportsJSON: Bool
  /// Subcommands; a command with subcommands and no action requires one.
  public var subcommands: [Command]
  /// The action; `nil` for a command that only groups subcommands.
  public var run: (@Sendable (Invocation) throws -> Void)?

  /// Creates a command.
  ///
  /// For example: `Command(name: "version", abstract: "Prints the version.", run: { _ in print("1") })`.
  ///
  /// - Parameters:
  ///   - name: The word that selects the command.
  ///   - abstract: One sentence for help listings.
  ///   - discussion: Longer help text.
  ///   - arguments: Positional arguments.
  ///   - options: Options taking a value.
  ///   - flags: Boolean flags.
  ///   - supportsJSON: Whether `--json` is accepted.
  ///   - subcommands: Nested commands.
  ///   - run: The action.
  public init(
    name: String, abstract: String, discussion: String = "", arguments: [Argument] = [],
    options: [Option] = [], flags: [Flag] = [], supportsJSON: Bool = false,
    subcommands: [Command] = [], run: (@Sendable (Invocation) throws -> Void)? = nil
  ) {
    self.name = name
    self.abstract = abstract
    self.discussion = discussion
    self.arguments = arguments
    self.options = options
    self.flags = flags
    self.supportsJSON = supportsJSON
    self.subcommands = subcommands
    self.run = run
  }
}

/// A positional argument.
///
/// For example: `Argument("people", help: "How many people share the bill (1 or more).")`.
public struct Argument: Sendable {
  /// The name shown in usage as `<name>` and used to read the value.
  public var name: String
  /// What the argument is.
  public var help: String
  /// Whether it may be left out (shown as `[<name>]`).
  public var isOptional: Bool
  /// Whether it takes every remaining word (shown as `<name>…`).
  public var isRepeating: Bool

  /// Creates an argument.
  ///
  /// For example: `Argument("memo", help: "A note.", isOptional: true, isRepeating: true)`.
  ///
  /// - Parameters:
  ///   - name: The name.
  ///   - help: What it is.
  ///   - isOptional: Whether it may be left out.
  ///   - isRepeating: Whether it takes every remaining word.
  public init(_ name: String, help: String, isOptional: Bool = false, isRepeating: Bool = false) {
    self.name = name
    self.help = help
    self.isOptional = isOptional
    self.isRepeating = isRepeating
  }
}

/// An option that takes a value: `--name value` or `--name=value`.
///
/// For example: `Option("app", help: "The app identifier.", valueName: "id")`.
public struct Option: Sendable {
  /// The long name, without dashes.
  public var name: String
  /// An optional one-letter name (`-m`).
  public var short: Character?
  /// What the option does.
  public var help: String
  /// The word shown for the value in help, such as `id`.
  public var valueName: String

  /// Creates an option.
  ///
  /// For example: `Option("memo", short: "m", help: "A note.", valueName: "text")`.
  ///
  /// - Parameters:
  ///   - name: The long name.
  ///   - short: The one-letter name.
  ///   - help: What it does.
  ///   - valueName: The word for the value in help.
  public init(_ name: String, short: Character? = nil, help: String, valueName: String = "value") {
    self.name = name
    self.short = short
    self.help = help
    self.valueName = valueName
  }
}

/// A flag: `--name` or `-n`, present or not.
///
/// For example: `Flag("yes", short: "y", help: "Don't ask for confirmation.")`.
public struct Flag: Sendable {
  /// The long name, without dashes.
  public var name: String
  /// An optional one-letter name.
  public var short: Character?
  /// What the flag does.
  public var help: String

  /// Creates a flag.
  ///
  /// For example: `Flag("int", help: "Store the value as an integer.")`.
  ///
  /// - Parameters:
  ///   - name: The long name.
  ///   - short: The one-letter name.
  ///   - help: What it does.
  public init(_ name: String, short: Character? = nil, help: String) {
    self.name = name
    self.short = short
    self.help = help
  }
}
