import Foundation
import KuraTestSupport
import Testing

@testable import Kura

@Suite("Row change tracking")
struct RowChangeTrackingTests {
  let folder = TemporaryDirectory()

  @Test func anUpsertReportsWhetherItInsertedOrUpdatedAndTheRowID() throws {
    let db = try Connection(path: folder.file("a.sqlite").path)
    try db.execute(
      """
      CREATE TABLE note (id INTEGER NOT NULL PRIMARY KEY, text TEXT NOT NULL);
      CREATE TABLE other (id INTEGER PRIMARY KEY);
      """)
    let upsert =
      "INSERT INTO note (id, text) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET text = excluded.text"
    let seen = try db.trackingRowChanges(in: "note") { tracker in
      var seen: [(Int, RowOperation?, Int64)] = [(tracker.count, tracker.lastOperation, 0)]
      try db.run(upsert, [.integer(7), .text("a")])
      seen.append((tracker.count, tracker.lastOperation, tracker.lastRowID))
      try db.run(upsert, [.integer(7), .text("b")])
      seen.append((tracker.count, tracker.lastOperation, tracker.lastRowID))
      try db.run("INSERT INTO other (id) VALUES (1)")  // another table: not reported
      seen.append((tracker.count, tracker.lastOperation, tracker.lastRowID))
      try db.run("DELETE FROM note WHERE id = 7")
      seen.append((tracker.count, tracker.lastOperation, tracker.lastRowID))
      return seen
    }
    #expect(seen.map(\.0) == [0, 1, 2, 2, 3])
    #expect(seen.map(\.1) == [nil, .insert, .update, .update, .delete])
    #expect(seen.map(\.2) == [0, 7, 7, 7, 7])
  }

  @Test func changesAfterTheTrackingEndsAreNotReported() throws {
    let db = try Connection(path: ":memory:")
    try db.execute("CREATE TABLE note (id INTEGER PRIMARY KEY)")
    let tracker = db.trackingRowChanges(in: "note") { $0 }
    try db.run("INSERT INTO note (id) VALUES (1)")
    #expect(tracker.count == 0)
    #expect(tracker.lastOperation == nil)
  }
}
