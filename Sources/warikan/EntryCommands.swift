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
    try readingBook(invocation) { book in
      let list = book.newestFirst
      if invocation.json {
        try invocation.printJSON(list)
        return
      }
      if list.isEmpty {
        print("No entries yet. Add one with `warikan add <yen> [memo]`.")
        return
      }
      // Numbers, times (`6:06` under `22:38`) and amounts are right-aligned in their columns.
      func padded(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
      }
      let indexWidth = String(list.count).count
      let timeWidth = list.map { visible($0.time).count }.max() ?? 0
      let amountWidth = list.map { Amount.format($0.cash).count }.max() ?? 0
      for (offset, entry) in list.enumerated() {
        let line =
          padded(String(offset + 1), to: indexWidth) + "  "
          + padded(visible(entry.time), to: timeWidth) + "  "
          + padded(Amount.format(entry.cash), to: amountWidth) + "  "
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
    try readingBook(invocation) { book in
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
