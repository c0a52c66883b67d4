import Foundation
import Kura
import KuraCLI
import WarikanKit

/// `warikan`: the bill-splitting app as commands.
let warikanCommand = Command(
  name: "warikan",
  abstract: "Splits a bill: records what was spent and shares the total exactly.",
  discussion: """
    Run `warikan` with no command on a terminal to open the full-screen app (Add, List and \
    Calc tabs; the draft is kept for the terminal session until you quit). \
    Entries live in cashData.json in warikan's Documents folder (KURA_HOME=<dir> moves it), in \
    the JSON format of the original app. Times are written in the time zone named by TZ. \
    Amounts and numbers of people accept full-width digits (２８００).
    """,
  subcommands: [
    addCommand, listCommand, deleteCommand, totalCommand, splitCommand, resetCommand,
    recoverCommand,
  ])

/// Opens the book, runs `body`, then closes it (compacting the journal into plain JSON);
/// maps warikan's input errors to usage errors and damaged files to a message with the fix.
///
/// `check` runs first, before the book is opened, so that input it rejects creates nothing.
func withBook<T>(
  _ invocation: Invocation, options: DocumentOptions = DocumentOptions(),
  check: () throws -> Void = {}, _ body: (EntryBook) throws -> T
) throws -> T {
  try mappingErrors(invocation) {
    try check()
    let book = try EntryBook(options: options)
    let result = try body(book)
    do {
      try book.close()
    } catch let error as DocumentError where error.code == .compactionFailed {
      // Every change is saved (in the journal): the command did what it said.
      CommandLineTool.printError("warikan: warning: \(visibleLines("\(error)"))")
    }
    return result
  }
}

/// Reads the book without opening it for writing (``EntryBook/read(location:)``: nothing is
/// created, compacted or moved aside), runs `body`, and maps errors as ``withBook`` does: the
/// read-only commands (`list`, `total`, `split`) leave the Documents folder as they found it.
func readingBook<T>(_ invocation: Invocation, _ body: (EntryBook.Contents) throws -> T) throws -> T
{
  try mappingErrors(invocation) { try body(try EntryBook.read()) }
}

/// Warns of an unknown `TZ`, runs `body`, and maps warikan's input errors to usage errors and
/// damaged files to a message with the fix.
private func mappingErrors<T>(_ invocation: Invocation, _ body: () throws -> T) throws -> T {
  if let problem = ShortTime.timeZoneProblem() {
    CommandLineTool.printError("warikan: warning: \(visible(problem))")
  }
  do {
    return try body()
  } catch let error as WarikanError {
    switch error {
    case .totalTooLarge, .negativeTotal:
      // The file's content, not the command line, is the problem.
      throw WarikanFailure(message: "\(error)")
    case .noSuchEntry(let reference, _) where !reference.allSatisfy(\.isWhitespace):
      // A well-formed reference to an entry that isn't there (as `customers delete 9`).
      throw WarikanFailure(message: "\(error)")
    default:
      throw UsageError("\(error)", command: invocation.commandPath)
    }
  } catch let error as DocumentError where error.code == .damaged {
    throw WarikanFailure(
      message:
        "\(error)\nTo move the damaged file aside and start an empty bill, run `warikan recover`.")
  }
}

/// A failure reported as `warikan: error: <message>` with exit status 1.
struct WarikanFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// "1 entry", "3 entries".
func entries(_ count: Int) -> String {
  count == 1 ? "1 entry" : "\(Amount.grouped(count)) entries"
}

/// "1 person", "3 people".
func people(_ count: Int) -> String {
  count == 1 ? "1 person" : "\(Amount.grouped(count)) people"
}

/// One entry on one line: amount, memo, time and short id.
func describe(_ entry: CashData) -> String {
  let memo = entry.memo.isEmpty ? "" : " \(visible(entry.memo))"
  return
    "\(Amount.format(entry.cash))\(memo) at \(visible(entry.time))"
    + " (id \(entry.id.uuidString.prefix(8)))"
}
