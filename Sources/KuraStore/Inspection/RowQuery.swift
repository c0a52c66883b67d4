import Foundation
import KuraBase
import KuraSQLite

/// What page of a model's rows to read (`kura studio`'s rows table): the sort, the filter, a
/// search, and where the previous page ended.
package struct RowQuery: Sendable, Equatable {
  /// The property to sort by; `nil` for the primary key.
  package var sort: String?
  /// Whether the sort is descending (`nil` last, as `SortDescriptor`'s reverse order).
  package var descending = false
  /// The conditions, all of which a row meets.
  package var filters: [RowFilter] = []
  /// Words to find with the model's full-text search index, or `nil`.
  package var search: String?
  /// Where the previous page ended; `nil` for the first page.
  package var after: RowCursor?
  /// The number of rows on a page.
  package var limit = 50
  /// The most rows read for one page when a part of the filter runs in memory: past it the page
  /// ends early (``RowPage/next`` continues the scan), so no request reads a whole large table.
  package var scanLimit = 20_000

  package init(
    sort: String? = nil, descending: Bool = false, filters: [RowFilter] = [],
    search: String? = nil, after: RowCursor? = nil, limit: Int = 50
  ) {
    self.sort = sort
    self.descending = descending
    self.filters = filters
    self.search = search
    self.after = after
    self.limit = limit
  }
}

/// Where a page of rows ended: the sort value and the primary key of its last row (keyset
/// pagination: the next page is read by the index, however deep it is).
package struct RowCursor: Sendable, Hashable {
  /// The last row's sort value (as the sort compares it), or `nil` when sorted by the key.
  package var sortValue: DatabaseValue?
  /// The last row's primary key.
  package var key: DatabaseValue

  package init(sortValue: DatabaseValue?, key: DatabaseValue) {
    self.sortValue = sortValue
    self.key = key
  }

  /// The cursor as a URL-safe token.
  package var token: String {
    let parts = [sortValue.map(Self.keyToken) ?? "-", Self.keyToken(key)]
    return parts.joined(separator: ".")
  }

  /// The cursor a ``token`` stands for, or `nil` when the text is not one.
  package init?(token: String) {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, let key = Self.keyValue(token: parts[1]) else { return nil }
    if parts[0] == "-" {
      sortValue = nil
    } else {
      guard let value = Self.keyValue(token: parts[0]) else { return nil }
      sortValue = value
    }
    self.key = key
  }

  /// A stored value (such as a primary key) as a URL-safe token.
  package static func keyToken(_ value: DatabaseValue) -> String {
    switch value {
    case .null: return "n"
    case .integer(let number): return "i" + String(number)
    case .real(let number): return "r" + String(number.bitPattern, radix: 16)
    case .text(let text): return "t" + base64URL(Data(text.utf8))
    case .blob(let data): return "b" + base64URL(data)
    }
  }

  /// The stored value a ``keyToken(_:)`` stands for, or `nil` when the text is not one.
  package static func keyValue(token text: Substring) -> DatabaseValue? {
    guard let tag = text.first else { return nil }
    let rest = String(text.dropFirst())
    switch tag {
    case "n": return rest.isEmpty ? .null : nil
    case "i": return Int64(rest).map { .integer($0) }
    case "r": return UInt64(rest, radix: 16).map { .real(Double(bitPattern: $0)) }
    case "t":
      return data(base64URL: rest).flatMap { String(data: $0, encoding: .utf8) }.map { .text($0) }
    case "b": return data(base64URL: rest).map { .blob($0) }
    default: return nil
    }
  }

  private static func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  private static func data(base64URL text: String) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
      of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64)
  }
}

/// One page of a model's rows.
package struct RowPage: Sendable {
  /// The model's properties, in the order of each row's values.
  package var columns: [BrowsedModel.Column]
  /// The rows: one stored value per column.
  package var rows: [[DatabaseValue]]
  /// Where the next page starts, or `nil` when this is the last.
  package var next: RowCursor?
  /// Why parts of the filter ran in memory (on the rows SQL returned), as the store says it for
  /// a fetch; empty when all of it ran in SQL.
  package var inMemory: [String]
  /// The filter's SQL condition as run (placeholders for its values), or `nil` for none.
  package var condition: String?
  /// The rows read to make the page (more than its rows when a part ran in memory).
  package var scanned: Int
  /// Whether the page ended early at ``RowQuery/scanLimit`` rows read.
  package var stoppedAtScanLimit: Bool
}
