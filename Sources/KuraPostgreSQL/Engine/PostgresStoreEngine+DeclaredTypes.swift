import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreEngine {
    /// Whether `type` holds `kind`: its column type, or plain `TEXT` for the UUID, URL and JSON
    /// columns of a store made before they were `TEXT COLLATE "C"` (opened as they are).
    package func declaredType(_ type: String, holds kind: ColumnKind) -> Bool {
      type == columnType(kind) || (type == "TEXT" && [.uuid, .url, .json].contains(kind))
    }
  }
#endif
