import Foundation

/// SQLite's SQL: `"quoted"` identifiers, `?` parameters, integer booleans, and the Swift string
/// collation and functions every Kura ``Connection`` registers (``SwiftStringSQL``).
struct SQLiteDialect: SQLDialect {
  func quoteIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  func placeholder(_ index: Int) -> String { "?" }

  func escapeLikePattern(_ text: String) -> String {
    var escaped = ""
    for character in text {
      if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }

  var likeEscapeClause: String { " ESCAPE '\\'" }

  func booleanLiteral(_ value: Bool) -> String { value ? "1" : "0" }

  var swiftStringCollation: String? { " COLLATE " + SwiftStringSQL.collation }

  func stringContains(_ text: String, _ other: String) -> String? {
    "\(SwiftStringSQL.containsFunction)(\(text), \(other))"
  }

  func stringStartsWith(_ text: String, _ prefix: String) -> String? {
    "\(SwiftStringSQL.startsWithFunction)(\(text), \(prefix))"
  }

  func jsonArrayValues(_ parameter: String) -> String? {
    "SELECT value FROM json_each(\(parameter))"
  }
}
