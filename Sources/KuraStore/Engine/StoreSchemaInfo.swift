import Foundation
import KuraBase
import KuraSQLite

/// A column of a stored table, as the engine reports it.
package struct StoreColumnInfo: Equatable {
  /// The column name.
  package var name: String
  /// The declared type, as written when the table was created (such as `TEXT`).
  package var type: String
  /// Whether the column is declared `NOT NULL`.
  package var notNull: Bool
  /// Whether the column is (part of) the primary key.
  package var primaryKey: Bool

  /// Creates the value from each of its stored properties.
  package init(name: String, type: String, notNull: Bool, primaryKey: Bool) {
    self.name = name
    self.type = type
    self.notNull = notNull
    self.primaryKey = primaryKey
  }
}

/// A foreign key of a stored table.
package struct StoreForeignKey: Equatable {
  /// The referring column.
  package var column: String
  /// The table referred to.
  package var targetTable: String
  /// The column referred to, or `nil` when the key names none (the target's primary key).
  package var targetColumn: String?
  /// The `ON DELETE` action, uppercased (`CASCADE`, `SET NULL`, `NO ACTION`…).
  package var onDelete: String

  /// Creates the value from each of its stored properties.
  package init(column: String, targetTable: String, targetColumn: String?, onDelete: String) {
    self.column = column
    self.targetTable = targetTable
    self.targetColumn = targetColumn
    self.onDelete = onDelete
  }
}

/// An index of a stored table (not the primary key's).
package struct StoreIndexInfo: Equatable {
  /// The index name.
  package var name: String
  /// Whether it is unique.
  package var unique: Bool
  /// Its columns, in order.
  package var columns: [String]

  /// Creates the value from each of its stored properties.
  package init(name: String, unique: Bool, columns: [String]) {
    self.name = name
    self.unique = unique
    self.columns = columns
  }
}

/// A row whose reference points at nothing.
package struct StoreForeignKeyViolation: Equatable {
  /// The referring table.
  package var table: String
  /// The table referred to.
  package var target: String

  /// Creates the value from each of its stored properties.
  package init(table: String, target: String) {
    self.table = table
    self.target = target
  }
}

/// The first row of a table whose reference points at nothing: its key, the referring column,
/// the table referred to and the missing value.
package struct StoreDanglingReference: Equatable {
  package var key: DatabaseValue
  package var column: String
  package var target: String
  package var missing: DatabaseValue

  /// Creates the value from each of its stored properties.
  package init(key: DatabaseValue, column: String, target: String, missing: DatabaseValue) {
    self.key = key
    self.column = column
    self.target = target
    self.missing = missing
  }
}
