import Testing
import KuraPostgreSQL
import KuraTestSupport
import KuraEngineTestSupport
import KuraCLI
import KuraStoreCLI

/// The PostgreSQL engine's tests, grouped so that `swift test --filter PostgreSQL` runs them all.
@Suite("PostgreSQL")
struct PostgreSQLTests {}
