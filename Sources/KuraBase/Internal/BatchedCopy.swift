/// The loop that copies a table's rows into another in batches (a migration rebuilding a
/// table), paged by a row number that grows with each row (SQLite's `rowid`, the PostgreSQL
/// engine's hidden row column), so each batch is one bounded statement and rows keep their order.
package enum BatchedCopy {
  /// The most rows one batch copies.
  package static let batchSize = 50_000

  /// Calls `copyBatch` until a batch copies fewer than ``batchSize`` rows, telling `progress`
  /// the rows copied so far after each batch.
  ///
  /// - Parameters:
  ///   - progress: Told the number of rows copied so far, after each batch that copied some.
  ///   - copyBatch: Copies the next batch: the rows numbered above its argument (from the
  ///     first row when it is `nil`), in order, at most ``batchSize``; returns how many it
  ///     copied and the highest number among them (`nil` when none).
  package static func run(
    progress: (Int) -> Void, copyBatch: (_ after: Int64?) throws -> (copied: Int, last: Int64?)
  ) throws {
    var last: Int64?
    var done = 0
    while true {
      let batch = try copyBatch(last)
      guard batch.copied > 0, let newest = batch.last else { break }
      done += batch.copied
      last = newest
      progress(done)
      if batch.copied < batchSize { break }
    }
  }
}
