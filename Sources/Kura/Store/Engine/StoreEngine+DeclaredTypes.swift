import Foundation

extension StoreEngine {
  /// Whether a column of a Kura table declared `type` (as introspection reports it) holds
  /// values of `kind` as this engine stores them: the type ``columnType(_:)`` gives now, or on
  /// PostgreSQL plain `TEXT` for UUID, URL and JSON columns, as stores made before those were
  /// ordered as bytes (`COLLATE "C"`) have them; the next writable open upgrades them.
  func declaredType(_ type: String, holds kind: ColumnKind) -> Bool {
    if type == columnType(kind) { return true }
    switch self {
    case .sqlite:
      return false
    #if canImport(CLibPQ)
      case .postgres:
        return type == "TEXT" && [.uuid, .url, .json].contains(kind)
    #endif
    }
  }
}
