// The SQLite layer against direct C API calls: filled in by the foundation work.
func runSQLiteBenchmarks() throws {}
