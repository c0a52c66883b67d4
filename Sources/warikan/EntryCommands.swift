import Foundation
import Kura
import KuraCLI
import WarikanKit

/// `warikan add <yen> [memo…]`.
let addCommand = Command(
  name: "add",
  abstract: "Adds an entry: an amount in yen and an optional memo.",
  discussion: "The amount is a whole number of yen above zero, such as 2800, 2,800 or ¥2,800.",
  arguments: [
    Argument("yen", help: "The amount in yen, such as 2800 or ¥2,800"),
    Argument("memo", help: "What it was for", isOptional: true, isRepeating: true),
  ],
  supportsJSON: true,
  run: { invocation in
    let amount = invocation.words("yen").first ?? ""
    let memo = invocation.words("memo").joined(separator: " ")
    var cash = 0
    let check = {
      cash = try Amount.parse(amount)
      if cash == 0 { throw WarikanError.zeroAmount(input: amount) }
    }
    try withBook(invocation, check: check) { book in
      let entry = try book.add(cash: cash, memo: memo)
      if invocation.json {
        try invocation.printJSON(entry)
      } else {
        print("Added \(describe(entry)).")
        print("Total: \(Amount.format(try book.total)) in \(entries(book.entries.count)).")
      }
    }
  })

/// `warikan list [--json]`.
let listCommand = Command(
  name: "list",
  abstract: "Lists the entries, newest first, numbered for `warikan delete`.",
  supportsJSON: true,
  run: { invocation in
    try withBook(invocation) { book in
      let list = book.newestFirst
      if invocation.json {
        try invocation.printJSON(list)
        return
      }
      if list.isEmpty {
        print("No entries yet. Add one with `warikan add <yen> [memo]`.")
        return
      }
      let indexWidth = String(list.count).count
      let amountWidth = list.map { Amount.format($0.cash).count }.max() ?? 0
      for (offset, entry) in list.enumerated() {
        let index = String(offset + 1)
        let amount = Amount.format(entry.cash)
        let time = visible(entry.time)
        let line =
          String(repeating: " ", count: indexWidth - index.count) + index + "  "
          + time.padding(toLength: max(5, time.count), withPad: " ", startingAt: 0)
          + "  " + String(repeating: " ", count: amountWidth - amount.count) + amount + "  "
          + entry.id.uuidString.prefix(8) + (entry.memo.isEmpty ? "" : "  " + visible(entry.memo))
        print(line)
      }
      print("Total: \(Amount.format(try book.total)) in \(entries(list.count)).")
    }
  })

/// `warikan delete <id-prefix | index>`.
let deleteCommand = Command(
  name: "delete",
  abstract: "Deletes an entry by its number in `warikan list` (1 is the newest) or id prefix.",
  arguments: [
    Argument("entry", help: "A number shown by `warikan list`, or the start of an entry's id")
  ],
  supportsJSON: true,
  run: { invocation in
    let reference = (invocation.words("entry").first ?? "").withASCIIDigits
    try withBook(invocation) { book in
      let entry = try book.delete(matching: reference)
      if invocation.json { return try invocation.printJSON(entry) }
      print("Deleted \(describe(entry)).")
      print("Total: \(Amount.format(try book.total)) in \(entries(book.entries.count)).")
    }
  })

/// `warikan total [--json]`.
let totalCommand = Command(
  name: "total",
  abstract: "Prints the total of every entry.",
  supportsJSON: true,
  run: { invocation in
    try withBook(invocation) { book in
      let total = try book.total
      if invocation.json {
        try invocation.printJSON(TotalOutput(total: total, entries: book.entries.count))
      } else {
        print("\(Amount.format(total)) in \(entries(book.entries.count))")
      }
    }
  })

/// `warikan total --json` output.
struct TotalOutput: Encodable {
  var total: Int
  var entries: Int
}
