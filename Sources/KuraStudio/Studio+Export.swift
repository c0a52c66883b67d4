import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncServer

// Exporting the rows of the current view (its sort, filter and search) as CSV or JSON.

extension Studio {
  /// At most this many rows are exported at once.
  static let exportLimit = 1_000_000

  func export(_ query: [String: String]) throws -> StudioResponse {
    let (inspector, model, _) = try model(query)
    var rows = try rowQuery(query)
    rows.after = nil
    rows.limit = 1_000
    let format = query["format"] ?? "csv"
    guard format == "csv" || format == "json" else {
      throw StudioRequestError(message: "`\(format)` is not an export format: give csv or json.")
    }
    var columns: [BrowsedModel.Column] = []
    var values: [[DatabaseValue]] = []
    while values.count < Self.exportLimit {
      let page = try inspector.page(of: model, rows)
      columns = page.columns
      values += page.rows
      guard let next = page.next else { break }
      rows.after = next
    }
    if columns.isEmpty { columns = model.columns }
    let body = format == "csv" ? Self.csv(columns, values) : try Self.json(columns, values)
    var response = StudioResponse.content(
      200, format == "csv" ? "text/csv; charset=utf-8" : "application/json", body)
    let file = model.name.filter { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    response.headers["Content-Disposition"] =
      "attachment; filename=\"\(file.isEmpty ? "rows" : file).\(format)\""
    return response
  }

  /// CSV (RFC 4180): a header, then a line per row. `nil` is an empty field and empty text a
  /// quoted empty field (`""`), so the two stay apart; dates in ISO 8601, bytes in hexadecimal.
  static func csv(_ columns: [BrowsedModel.Column], _ rows: [[DatabaseValue]]) -> Data {
    func quoted(_ text: String) -> String {
      "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
    var text = columns.map { quoted($0.name) }.joined(separator: ",") + "\r\n"
    for row in rows {
      text +=
        zip(row, columns).map { value, column -> String in
          switch value {
          case .null: return ""
          case .text(let string): return quoted(string)
          default: return quoted(plain(value, kind: column.kind))
          }
        }.joined(separator: ",") + "\r\n"
    }
    return Data(text.utf8)
  }

  /// A value that is not text, as text: dates in ISO 8601, Booleans as `true`/`false`, bytes in
  /// hexadecimal.
  static func plain(_ value: DatabaseValue, kind: String) -> String {
    switch (value, kind) {
    case (.integer(let number), "bool"): return number != 0 ? "true" : "false"
    case (_, "date"): return StudioCell.iso(StudioCell.number(value) ?? .nan)
    case (.integer(let number), _): return String(number)
    case (.blob(let data), let kind) where kind != "real":
      return data.map { String(format: "%02x", $0) }.joined()
    case (.text(let text), _): return text
    default: return String(StudioCell.number(value) ?? .nan)
    }
  }

  /// JSON: an array of objects, one per row, with each property's value typed (`null` for
  /// `nil`, numbers, `true`/`false`, text; dates in ISO 8601, bytes in base64, integers beyond
  /// 2^53 as text).
  static func json(_ columns: [BrowsedModel.Column], _ rows: [[DatabaseValue]]) throws -> Data {
    var objects: [[String: Any]] = []
    for row in rows {
      var object: [String: Any] = [:]
      for (value, column) in zip(row, columns) {
        switch (value, column.kind) {
        case (.null, _): object[column.name] = NSNull()
        case (.integer(let number), "bool"): object[column.name] = number != 0
        case (_, "date"): object[column.name] = plain(value, kind: "date")
        case (.integer(let number), _):
          object[column.name] =
            abs(number) < (1 << 53) ? NSNumber(value: number) : String(number) as Any
        case (.text(let text), "json"):
          object[column.name] =
            (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
            ?? text
        case (.text(let text), _): object[column.name] = text
        case (.blob(let data), let kind) where kind != "real":
          object[column.name] = data.base64EncodedString()
        default:
          let number = StudioCell.number(value) ?? .nan
          object[column.name] = number.isFinite ? NSNumber(value: number) : String(number) as Any
        }
      }
      objects.append(object)
    }
    return try JSONSerialization.data(
      withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes])
  }
}
