import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

/// The PostgreSQL engine's tests, grouped so that `swift test --filter PostgreSQL` runs them all.
@Suite("PostgreSQL")
struct PostgreSQLTests {}
