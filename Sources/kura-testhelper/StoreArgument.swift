import Foundation
import Kura
import KuraPostgreSQL
import KuraSync
import KuraSyncCore

/// The configuration for a `<store>` argument the tests pass (`TestStore.argument` in
/// Tests/KuraTests/Support/StoreEngines.swift): a file's path for SQLite; a `postgresql://` URL
/// once the PostgreSQL engine lands (then: `return .postgres(url)` for such an argument).
func storeConfiguration(_ argument: String) -> ModelConfiguration {
  if argument.hasPrefix("postgresql://") || argument.hasPrefix("postgres://"),
    let url = URL(string: argument)
  {
    return .postgres(url)
  }
  return .url(URL(fileURLWithPath: argument))
}
