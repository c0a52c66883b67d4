import Kura

// TEMPORARY until pg-engine is merged: stands in for `ModelConfiguration.postgres(connectionString:)`.
extension ModelConfiguration {
  static func postgres(connectionString: String) throws -> ModelConfiguration {
    throw UsageError("The PostgreSQL engine is not merged yet.", command: "")
  }
}
