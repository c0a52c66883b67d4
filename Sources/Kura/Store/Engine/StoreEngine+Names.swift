import Foundation

extension StoreEngine {
  /// The longest table or column name the engine keeps whole, in bytes of UTF-8 (`nil`: no
  /// limit). PostgreSQL cuts identifiers at 63 bytes (`NAMEDATALEN` - 1).
  var longestName: Int? {
    switch self {
    case .sqlite: return nil
    #if canImport(CLibPQ)
      case .postgres: return 63
    #endif
    }
  }

  /// Refuses, before anything is sent, a model whose table or column name the engine would
  /// cut (two names equal in their first 63 bytes would then be one, and PostgreSQL's own
  /// errors would come from inside the store's setup transaction).
  func refuseNamesTooLong(_ schemas: [ModelSchema], url: URL?) throws {
    guard let limit = longestName else { return }
    for schema in schemas {
      let table = schema.tableName
      if table.utf8.count > limit {
        throw StoreError(
          .invalidModel, model: schema.modelName, url: url,
          message:
            "Can't store `\(schema.modelName)` on PostgreSQL: its table name `\(table)` is "
            + "\(table.utf8.count) bytes long, and PostgreSQL keeps names of at most \(limit) "
            + "bytes. Nothing was changed; declare a shorter `schemaName` for the model.")
      }
      for column in schema.columns where column.name.utf8.count > limit {
        throw StoreError(
          .invalidModel, model: schema.modelName, property: column.name, url: url,
          message:
            "Can't store `\(schema.modelName)` on PostgreSQL: its property `\(column.name)` is "
            + "\(column.name.utf8.count) bytes long, and PostgreSQL keeps column names of at "
            + "most \(limit) bytes. Nothing was changed; rename the property (its coding key).")
      }
    }
  }
}
