#if canImport(CLibPQ)
  import Foundation

  extension SyncService {
    /// The query arguments the endpoints read (the transport hands over these only).
    package static let queryArguments = ["after", "limit", "replica", "settled", "model", "id"]

    /// The saves of a pull's answer from its log rows (position, replica, sequence, changes),
    /// ending at the save that brings the page to ``SyncPullResponse/maximumChanges`` changes
    /// (the first save is always sent, however large).
    static func page(of rows: [(Int64, String, Int64, String)]) throws -> [SyncLoggedSave] {
      let decoder = JSONDecoder()
      var saves: [SyncLoggedSave] = []
      var changes = 0
      for row in rows {
        let save = SyncLoggedSave(
          position: row.0, replica: row.1, sequence: row.2,
          changes: try decoder.decode([SyncChange].self, from: Data(row.3.utf8)))
        saves.append(save)
        changes += save.changes.count
        if changes >= SyncPullResponse.maximumChanges { break }
      }
      return saves
    }
  }
#endif
