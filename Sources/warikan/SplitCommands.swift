import Foundation
import Kura
import KuraCLI
import WarikanKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `warikan split <people> [--json]`.
let splitCommand = Command(
  name: "split",
  abstract: "Splits the total among people exactly; the remainder is spread one yen each.",
  arguments: [
    Argument(
      "people",
      help: "How many people share the bill (1 to \(Amount.grouped(BillSplit.maximumPeople)))")
  ],
  supportsJSON: true,
  run: { invocation in
    let count = try invocation.argument("people", in: 1...BillSplit.maximumPeople)
    try readingBook(invocation) { book in
      let split = try book.split(among: count)
      if invocation.json {
        try invocation.printJSON(
          SplitOutput(
            total: split.total, people: split.people, baseShare: split.baseShare,
            remainder: split.remainder,
            shares: split.groups.map { SplitOutput.Share(yen: $0.yen, people: $0.people) }))
        return
      }
      print("\(Amount.format(split.total)) for \(people(split.people)):")
      for group in split.groups {
        let verb = group.people == 1 ? "pays" : "pay"
        print("  \(people(group.people)) \(verb) \(Amount.format(group.yen))")
      }
      if let nothing = split.groups.first(where: { $0.yen == 0 }) {
        CommandLineTool.printError(
          "warikan: warning: there are more people (\(Amount.grouped(split.people))) than yen "
            + "(\(Amount.format(split.total))), so \(people(nothing.people)) \(nothing.people == 1 ? "pays" : "pay") nothing; "
            + "check the number of people.")
      }
      if split.people <= 12 && split.people > 1 {
        print(
          "  " + split.shares.map(Amount.format).joined(separator: " + ") + " = "
            + Amount.format(split.total))
      }
    }
  })

/// `warikan split --json` output: the shares grouped by amount (at most two groups, however
/// many people).
struct SplitOutput: Encodable {
  struct Share: Encodable {
    var yen: Int
    var people: Int
  }
  var total: Int
  var people: Int
  var baseShare: Int
  var remainder: Int
  var shares: [Share]
}

/// `warikan reset [--yes]`.
let resetCommand = Command(
  name: "reset",
  abstract: "Deletes every entry (removes cashData.json) after asking.",
  discussion: """
    On a terminal it asks first; --yes skips the question. When standard input is not a \
    terminal, --yes is required (unless there are no entries).
    """,
  flags: [Flag("yes", short: "y", help: "Don't ask for confirmation.")],
  run: { invocation in
    try withBook(invocation) { book in
      let count = book.entries.count
      let total = try book.total
      // With nothing to lose there is nothing to ask.
      if !invocation.flag("yes") && count > 0 {
        guard isatty(STDIN_FILENO) == 1 else {
          throw UsageError(
            "`warikan reset` would delete \(entries(count)) (\(Amount.format(total))) and"
              + " standard input is not a terminal to ask: run `warikan reset --yes`.",
            command: invocation.commandPath)
        }
        print("Delete \(entries(count)) (\(Amount.format(total)))? [y/N] ", terminator: "")
        fflush(nil)
        let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
          print("Nothing was deleted.")
          throw ExitCode.failure
        }
      }
      try book.reset()
      print("Deleted \(entries(count)) (\(Amount.format(total))).")
    }
  })

/// `warikan recover`: moves a damaged cashData.json aside and starts an empty bill.
let recoverCommand = Command(
  name: "recover",
  abstract: "Moves a damaged cashData.json aside (cashData.json.damaged-<time>) and starts anew.",
  run: { invocation in
    try withBook(invocation, options: DocumentOptions(onDamage: .quarantine)) { book in
      if let damage = book.recoveredDamage {
        var problem = damage.reason
        if let line = damage.line {
          problem = "line \(line)" + (damage.column.map { ", column \($0)" } ?? "") + ": " + problem
        }
        print("Recovered `\(visible(damage.file.path))`: it was damaged (\(visible(problem))).")
        switch (damage.quarantinedFile, damage.quarantinedJournal) {
        case (let file?, let journal?):
          print(
            "The file and its journal were moved to `\(visible(file.path))` and "
              + "`\(visible(journal.path))`; restore entries from them by hand.")
        case (let file?, nil):
          print("The file was moved to `\(visible(file.path))`; restore entries from it by hand.")
        case (nil, let journal?):
          print(
            "The journal was moved to `\(visible(journal.path))`; restore entries from it by hand.")
        case (nil, nil):
          break
        }
        print("Started an empty bill.")
      } else {
        print(
          "`\(visible(book.url.path))` is fine (\(entries(book.entries.count))); nothing was moved."
        )
      }
    }
  })
