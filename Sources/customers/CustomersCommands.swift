import Foundation
import Kura
import KuraCLI

let addCommand = Command(
  name: "add",
  abstract: "Adds a customer to the end of the list.",
  arguments: [
    Argument("number", help: "The customer number, a whole number such as 12."),
    Argument("name", help: "The customer's name.", isRepeating: true),
  ],
  run: { invocation in
    let number: Int = try invocation.argument("number")
    let name = invocation.words("name").joined(separator: " ")
      .trimmingCharacters(in: .whitespacesAndNewlines)
    guard !name.isEmpty else {
      throw UsageError("The customer's <name> is empty: give a name.", command: "customers add")
    }
    let customer = Customer(id: UUID(), customerName: name, customerNumber: number)
    try standardPreferences().update(.customers) { $0 + [customer] }
    print("Added \(customer.row)")
  })

let listCommand = Command(
  name: "list",
  abstract: "Prints every customer as `No.<number>: <name>`, in the order they were added.",
  supportsJSON: true,
  run: { invocation in
    let preferences = try standardPreferences()
    let customers = preferences[.customers]
    // A stored value that isn't a customer list (or can't be read at all) reads as the empty
    // default: say so instead.
    if customers.isEmpty,
      let stored = try preferences.storedValue(forKey: Preferences.Key<[Customer]>.customers.name),
      stored != .array([])
    {
      throw UnreadableCustomerList(suite: preferences.suiteName, storedType: stored.typeName)
    }
    if invocation.json { return try invocation.printJSON(customers) }
    if customers.isEmpty {
      print("No customers yet. Add one with `customers add <number> <name>`.")
    }
    for customer in customers { print(customer.row) }
  })

/// A stored customer list that doesn't decode (written by hand or by another version).
struct UnreadableCustomerList: Error, CustomStringConvertible {
  var suite: String
  var storedType: String
  var description: String {
    let key = Preferences.Key<[Customer]>.customers.name
    return
      "Can't list customers: the value under key `\(key)` (\(storedType)) is not a customer"
      + " list. Nothing was changed; look at it with `kura defaults read \(suite) \(key)`."
  }
}

/// A `customers delete` that matched nothing.
struct CustomerNotFound: Error, CustomStringConvertible {
  var number: Int
  var description: String {
    "Can't delete customer `\(number)`: no customer has that number. "
      + "See the numbers with `customers list`."
  }
}

let deleteCommand = Command(
  name: "delete",
  abstract: "Deletes the customers with a number.",
  arguments: [Argument("number", help: "The customer number, a whole number such as 12.")],
  run: { invocation in
    let number: Int = try invocation.argument("number")
    var removed: [Customer] = []
    try standardPreferences().update(.customers) { customers in
      removed = customers.filter { $0.customerNumber == number }
      return customers.filter { $0.customerNumber != number }
    }
    guard !removed.isEmpty else { throw CustomerNotFound(number: number) }
    for customer in removed { print("Deleted \(customer.row)") }
  })
