#if canImport(CLibPQ)
  import KuraPostgresCluster
  import KuraPostgreSQL
  import KuraTestSupport
  import KuraSyncCore

  /// The throwaway PostgreSQL cluster (Sources/KuraPostgresCluster, shared with `kura-bench`),
  /// under the name every test file uses without importing its module.
  package typealias PostgresCluster = KuraPostgresCluster.PostgresCluster
#endif
