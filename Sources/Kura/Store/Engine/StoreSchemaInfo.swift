import Foundation

/// A column of a stored table, as the engine reports it.
struct StoreColumnInfo: Equatable {
  /// The column name.
  var name: String
  /// The declared type, as written when the table was created (such as `TEXT`).
  var type: String
  /// Whether the column is declared `NOT NULL`.
  var notNull: Bool
  /// Whether the column is (part of) the primary key.
  var primaryKey: Bool
}

/// A foreign key of a stored table.
struct StoreForeignKey: Equatable {
  /// The referring column.
  var column: String
  /// The table referred to.
  var targetTable: String
  /// The column referred to, or `nil` when the key names none (the target's primary key).
  var targetColumn: String?
  /// The `ON DELETE` action, uppercased (`CASCADE`, `SET NULL`, `NO ACTION`…).
  var onDelete: String
}

/// An index of a stored table (not the primary key's).
struct StoreIndexInfo: Equatable {
  /// The index name.
  var name: String
  /// Whether it is unique.
  var unique: Bool
  /// Its columns, in order.
  var columns: [String]
}

/// A row whose reference points at nothing.
struct StoreForeignKeyViolation: Equatable {
  /// The referring table.
  var table: String
  /// The table referred to.
  var target: String
}

/// The first row of a table whose reference points at nothing: its key, the referring column,
/// the table referred to and the missing value.
struct StoreDanglingReference: Equatable {
  var key: DatabaseValue
  var column: String
  var target: String
  var missing: DatabaseValue
}
