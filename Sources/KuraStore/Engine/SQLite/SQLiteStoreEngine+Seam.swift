import Foundation
import KuraBase
import KuraSQLite

extension SQLiteStoreEngine {
  package var dialect: any SQLDialect { SQLiteDialect() }

  package var databaseDescription: String { "an SQLite database" }

  /// `nil`: SQLite's history rows commit in token order (writers are serialized).
  package var historyHorizonSQL: String? { nil }

  /// `nil`: SQLite's writers are serialized, so no two trims run at once.
  package var historyTrimLockSQL: String? { nil }

  /// `false`: an SQLite file is the store's alone (and files of earlier versions are adopted).
  package var refusesTablesNotRecorded: Bool { false }

  /// `true`: a token is the history table's `max(rowid) + 1`.
  package var hasConsecutiveTokens: Bool { true }

  package func cast(_ expression: String, to kind: ColumnKind) -> String {
    "CAST(\(expression) AS \(columnType(kind)))"
  }

  package func widen(_ expression: String, from source: ColumnKind, to target: ColumnKind) -> String
  {
    let real = columnType(.real)
    if columnType(target) == real && columnType(source) != real {
      return cast(expression, to: .real)
    }
    return expression
  }

  package func integerTest(_ expression: String) -> String { "typeof(\(expression)) = 'integer'" }
}

extension SQLiteError: EngineError {
  /// The kind of failure, from SQLite's primary result code.
  package var failure: EngineFailure {
    switch code {
    case .constraint: return .constraintViolation
    case .busy, .locked: return .busy
    case .readOnly: return .readOnly
    case .cannotOpen: return .cannotOpen
    default: return .other
    }
  }

  package var failedSQL: String? { sql }
}

extension Statement: StoreStatement {
  package var identity: ObjectIdentifier { ObjectIdentifier(self) }

  /// SQLite finds each row as it steps: it can't say how many are left.
  package var rowsLeftHint: Int? { nil }
}

extension RowChangeTracker: StoreRowTracker {
  /// The rowid of the last change (an `INTEGER PRIMARY KEY` is the rowid).
  package var lastIntegerKey: Int64 { lastRowID }
}
