import Foundation

/// A request to the studio, as the HTTP transport read it.
package struct StudioRequest: Sendable {
  /// The method (`GET`, `POST`).
  package var method: String
  /// The path, without the query (`/api/rows`).
  package var path: String
  /// The query's parameters, decoded.
  package var query: [String: String]
  /// The headers, by lowercased name.
  package var headers: [String: String]
  /// The body.
  package var body: Data

  package init(
    method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
    body: Data = Data()
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    self.body = body
  }

  /// A header's value, by case-insensitive name.
  package func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// A cookie's value from the `Cookie` header.
  package func cookie(_ name: String) -> String? {
    guard let header = header("Cookie") else { return nil }
    for part in header.split(separator: ";") {
      let pair = part.trimmingCharacters(in: .whitespaces)
      guard let equals = pair.firstIndex(of: "=") else { continue }
      if pair[..<equals] == name { return String(pair[pair.index(after: equals)...]) }
    }
    return nil
  }
}
