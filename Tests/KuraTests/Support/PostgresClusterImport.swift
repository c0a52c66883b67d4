#if canImport(CLibPQ)
  import KuraPostgresCluster

  /// The throwaway PostgreSQL cluster (Sources/KuraPostgresCluster, shared with `kura-bench`),
  /// under the name every test file uses without importing its module.
  typealias PostgresCluster = KuraPostgresCluster.PostgresCluster
#endif
