import Foundation
import KuraBase
import KuraSQLite

extension StoreEngine {
  /// Whether a column of a Kura table declared `type` (as introspection reports it) holds
  /// values of `kind` as this engine stores them: by default only the type ``columnType(_:)``
  /// gives now (an engine also accepts the types its earlier stores declared).
  package func declaredType(_ type: String, holds kind: ColumnKind) -> Bool {
    type == columnType(kind)
  }
}
