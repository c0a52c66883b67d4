import Foundation
import Kura

/// The customer list as it is stored under `顧客情報保存`, in either of two forms:
///
/// - Kura's: a typed array (`[Customer]` kept as an array of dictionaries, which
///   `kura defaults read` shows field by field);
/// - the seed's: one `Data` value holding the JSON-encoded array
///   (`[{"id":"…","customerName":"…","customerNumber":12}]`), as the original app wrote it with
///   `JSONEncoder` into `UserDefaults`.
///
/// Both are read. A change is written back in the form that was found, so a list written by the
/// seed stays readable by the seed; a new list is written in Kura's form.
enum CustomerList {
  static var key: String { Preferences.Key<[Customer]>.customers.name }

  /// The list a stored value holds; `nil` when it holds no customer list.
  static func decode(_ stored: PreferenceValue) -> [Customer]? {
    let json: Data
    if case .data(let bytes) = stored {
      json = bytes
    } else {
      guard let encoded = try? JSONEncoder().encode(stored) else { return nil }
      json = encoded
    }
    return try? JSONDecoder().decode([Customer].self, from: json)
  }

  /// Every customer, in the order they were added.
  static func read(_ preferences: Preferences) throws -> [Customer] {
    // `storedValue` throws for a value this version can't read at all (an unknown type).
    guard let stored = try preferences.storedValue(forKey: key) else { return [] }
    guard let customers = decode(stored) else {
      throw UnreadableCustomerList(
        suite: preferences.suiteName, storedType: stored.typeName, action: "list")
    }
    return customers
  }

  /// Changes the list in one transaction (other processes' changes are never lost) and
  /// returns what `change` returns; a stored value that is not a customer list is kept and
  /// reported instead.
  static func update<Result>(
    _ preferences: Preferences, _ change: (inout [Customer]) throws -> Result
  ) throws -> Result {
    try preferences.batch { batch in
      let stored = try batch.storedValue(forKey: key)
      var customers: [Customer] = []
      if let stored {
        guard let decoded = decode(stored) else {
          throw UnreadableCustomerList(
            suite: preferences.suiteName, storedType: stored.typeName, action: "change")
        }
        customers = decoded
      }
      let result = try change(&customers)
      if case .data = stored {
        try batch.setValue(.data(try JSONEncoder().encode(customers)), forKey: key)
      } else {
        try batch.set(customers, for: .customers)
      }
      return result
    }
  }
}

/// A stored customer list that doesn't decode (written by hand or by another version).
struct UnreadableCustomerList: Error, CustomStringConvertible {
  var suite: String
  var storedType: String
  /// What could not be done: `list` or `change` customers.
  var action: String
  var description: String {
    "Can't \(action) customers: the value under key `\(CustomerList.key)` (\(storedType)) is"
      + " not a customer list. Nothing was changed; look at it with `kura defaults read"
      + " \(suite) \(CustomerList.key)`."
  }
}
