import Foundation

/// Removes passwords from text that may quote a location a person typed (a `postgresql://` URL,
/// a libpq connection string), so an error can quote the input without its secret.
package enum SecretRedaction {
  /// `message` with every password `input` may hold replaced by `•••` (libpq's messages about a
  /// string it can't read may quote the string).
  package static func redacting(_ message: String, secretsOf input: String) -> String {
    var secrets: [Substring] = []
    // The password of a URL's user information: `scheme://user:password@host`.
    if let scheme = input.range(of: "://") {
      let rest = input[scheme.upperBound...]
      if let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
        secrets.append(rest[rest.index(after: colon)..<at])
      }
    }
    // `password=value`, `password = 'value'`, `sslpassword=…`, `?password=value&…`.
    var searchStart = input.startIndex
    while let found = input.range(
      of: "password", options: .caseInsensitive, range: searchStart..<input.endIndex)
    {
      searchStart = found.upperBound
      var index = found.upperBound
      func skipSpaces() {
        while index < input.endIndex, input[index].isWhitespace {
          index = input.index(after: index)
        }
      }
      skipSpaces()
      guard index < input.endIndex, input[index] == "=" else { continue }
      index = input.index(after: index)
      skipSpaces()
      let start = index
      if index < input.endIndex, input[index] == "'" {
        index = input.index(after: index)
        while index < input.endIndex, input[index] != "'" {
          if input[index] == "\\" { index = input.index(after: index) }
          if index < input.endIndex { index = input.index(after: index) }
        }
      } else {
        while index < input.endIndex, !input[index].isWhitespace, input[index] != "&" {
          index = input.index(after: index)
        }
      }
      secrets.append(input[start..<index])
      let unquoted = input[start..<index].trimmingCharacters(in: CharacterSet(charactersIn: "'"))
      secrets.append(Substring(unquoted))
    }
    var text = message
    // libpq quotes the word it stumbled on (`missing "=" after "horse"`): with a password in
    // the string, that word may be part of it (`password=correct horse`), so no quoted word
    // but `=` is shown.
    if input.range(of: "password", options: .caseInsensitive) != nil {
      text = redactingQuotedWords(text)
    }
    for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
      text = text.replacingOccurrences(of: secret, with: "•••")
      if let decoded = secret.removingPercentEncoding, !decoded.isEmpty {
        text = text.replacingOccurrences(of: decoded, with: "•••")
      }
    }
    return text
  }
  /// `text` with every double-quoted word but `"="` replaced by `"•••"`.
  package static func redactingQuotedWords(_ text: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let open = rest.firstIndex(of: "\"") {
      result += rest[...open]
      let afterOpen = rest.index(after: open)
      guard let close = rest[afterOpen...].firstIndex(of: "\"") else {
        rest = rest[afterOpen...]
        break
      }
      let word = rest[afterOpen..<close]
      result += word == "=" ? String(word) : "•••"
      result += "\""
      rest = rest[rest.index(after: close)...]
    }
    return result + rest
  }
}
