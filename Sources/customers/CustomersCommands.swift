import Foundation
import Kura
import KuraCLI

let addCommand = Command(
  name: "add",
  abstract: "Adds a customer to the end of the list.",
  arguments: [
    Argument("number", help: "The customer number, a whole number of 0 or more such as 12."),
    Argument("name", help: "The customer's name.", isRepeating: true),
  ],
  supportsJSON: true,
  run: { invocation in
    let number = try invocation.argument("number", in: 0...)
    let name = invocation.words("name").joined(separator: " ")
      .trimmingCharacters(in: .whitespacesAndNewlines)
    guard !name.isEmpty else {
      throw UsageError("The customer's <name> is empty: give a name.", command: "customers add")
    }
    let customer = Customer(id: UUID(), customerName: name, customerNumber: number)
    try CustomerList.update(try standardPreferences()) { $0.append(customer) }
    if invocation.json { return try invocation.printJSON(customer) }
    print("Added \(customer.row)")
  })

let listCommand = Command(
  name: "list",
  abstract: "Prints every customer as `<row>  No.<number>: <name>`, in the order they were added.",
  discussion: """
    <row> is the position in the list (1 is the first), used by `customers delete <row>`. \
    --json prints the list in the seed's format: [{"id", "customerName", "customerNumber"}].
    """,
  supportsJSON: true,
  run: { invocation in
    let customers = try readingStandardPreferences().map(CustomerList.read) ?? []
    if invocation.json { return try invocation.printJSON(customers) }
    if customers.isEmpty {
      print("No customers yet. Add one with `customers add <number> <name>`.")
    }
    let width = String(customers.count).count
    for (offset, customer) in customers.enumerated() {
      let row = String(offset + 1)
      print(String(repeating: " ", count: width - row.count) + row + "  " + customer.row)
    }
  })

/// A `customers delete` that matched nothing.
struct CustomerNotFound: Error, CustomStringConvertible {
  var reference: String
  var byNumber: Bool
  var count: Int
  var description: String {
    if byNumber {
      return "Can't delete customers numbered `\(reference)`: no customer has that number. "
        + "See the numbers with `customers list`."
    }
    let rows = count == 0 ? "the list is empty" : "rows go from 1 to \(count)"
    return "Can't delete row `\(reference)`: there is no such row and no customer id starts "
      + "with it (\(rows)). See the rows with `customers list`."
  }
}

let deleteCommand = Command(
  name: "delete",
  abstract: "Deletes one customer by its row in `customers list` or its id (or, with --number, "
    + "every customer with a number).",
  discussion: """
    `customers delete 2` deletes the second row of `customers list` (the seed's swipe to \
    delete); `customers delete 3F4D` deletes the customer whose id starts with 3F4D (see \
    `customers list --json`); `customers delete --number 12` deletes every customer numbered 12.
    """,
  arguments: [
    Argument(
      "row", help: "The row in `customers list` (1 is the first), or the start of an id.",
      isOptional: true)
  ],
  options: [
    Option("number", help: "Delete every customer with this number instead.", valueName: "n")
  ],
  supportsJSON: true,
  run: { invocation in
    let reference: String? = try invocation.optionalArgument("row")
    let number: Int? = try invocation.option("number")
    guard (reference == nil) != (number == nil) else {
      throw UsageError(
        reference == nil
          ? "Missing argument <row>: give a row of `customers list`, or --number <n>."
          : "Give either <row> or --number, not both.", command: invocation.commandPath)
    }
    if let text = reference {
      let row = Int(argument: text)
      let isID = text.count >= 4 && text.allSatisfy { $0.isHexDigit || $0 == "-" }
      guard row.map({ $0 >= 1 }) ?? isID else {
        throw UsageError(
          "`\(text)` is not a valid value for <row>: expected a row number of 1 or more (see "
            + "`customers list`) or the start of a customer's id, such as 3F4D.",
          command: invocation.commandPath)
      }
    }
    let removed: [Customer] = try CustomerList.update(try standardPreferences()) { customers in
      if let number {
        let matching = customers.filter { $0.customerNumber == number }
        guard !matching.isEmpty else {
          throw CustomerNotFound(reference: String(number), byNumber: true, count: customers.count)
        }
        customers.removeAll { $0.customerNumber == number }
        return matching
      }
      let text = reference ?? ""
      // A row number of the list; otherwise (an id may start with digits only) an id prefix.
      if let row = Int(argument: text), row >= 1, row <= customers.count {
        return [customers.remove(at: row - 1)]
      }
      let byID = customers.indices.filter {
        text.count >= 4 && customers[$0].id.uuidString.hasPrefix(text.uppercased())
      }
      guard byID.count == 1, let index = byID.first else {
        if byID.count > 1 {
          // Never a guess: the candidates are listed, and nothing is deleted.
          let candidates = byID.map { "\(customers[$0].row) (\(customers[$0].id.uuidString))" }
          throw UsageError(
            "`\(text)` matches \(byID.count) customers: "
              + candidates.joined(separator: ", ") + ". Give more of the id.",
            command: invocation.commandPath)
        }
        throw CustomerNotFound(reference: text, byNumber: false, count: customers.count)
      }
      return [customers.remove(at: index)]
    }
    if invocation.json { return try invocation.printJSON(removed) }
    for customer in removed { print("Deleted \(customer.row)") }
  })
