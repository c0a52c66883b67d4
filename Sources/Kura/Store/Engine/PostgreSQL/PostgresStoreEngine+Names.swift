#if canImport(CLibPQ)
  import Foundation

  extension PostgresStoreEngine {
    /// PostgreSQL keeps names of at most 63 bytes (`NAMEDATALEN - 1`) and cuts longer ones.
    var longestName: Int? { 63 }

    /// Refuses, before anything is sent, a model whose table or column name the engine would
    /// cut (two names equal in their first 63 bytes would then be one, and PostgreSQL's own
    /// errors would come from inside the store's setup transaction).
    func refuseNamesTooLong(_ schemas: [ModelSchema], url: URL?) throws {
      let limit = 63
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
#endif
