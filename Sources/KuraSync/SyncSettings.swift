import Foundation
import KuraBase
import KuraSQLite
import KuraStore
import KuraSyncCore

/// Where a local store syncs: the Kura sync server (`kura sync serve`), the space, and the
/// token that grants it. Set it on ``ModelConfiguration/sync`` to turn sync on.
///
/// The token is never printed: ``description`` leaves it out.
///
/// For example:
///
/// ```swift
/// var configuration = ModelConfiguration.url(storeURL)
/// configuration.sync = SyncSettings(
///   server: URL(string: "http://127.0.0.1:8080")!, space: "family", token: token)
/// ```
public struct SyncSettings: Sendable, Hashable, CustomStringConvertible {
  /// The sync server's base URL, such as `http://127.0.0.1:8080`.
  public var server: URL
  /// The space to sync (an account, a team): the one the token grants.
  public var space: String
  /// The token `kura sync token` made for the space.
  public var token: String
  /// How often the sync engine asks the server for others' changes while nothing happens
  /// locally; 2 seconds by default.
  public var pollInterval: Duration = .seconds(2)
  /// How long a pull may wait on the server for another device's save while nothing happens
  /// locally (a long poll: the server answers as soon as the space has a new save, so the
  /// device hears of it within milliseconds); 20 seconds by default, at most 25 (the server
  /// cuts it). `nil` polls every ``pollInterval`` instead, as the engine also does with a
  /// server that can't wait.
  public var waitForChanges: Duration? = .seconds(20)

  /// Creates sync settings.
  ///
  /// For example:
  ///
  /// ```swift
  /// let settings = SyncSettings(server: serverURL, space: "family", token: token)
  /// ```
  ///
  /// - Parameters:
  ///   - server: The sync server's base URL.
  ///   - space: The space the token grants.
  ///   - token: The token.
  public init(server: URL, space: String, token: String) {
    self.server = server
    self.space = space
    self.token = token
  }

  /// The server and space, without the token.
  public var description: String { "\(server.absoluteString) space \(space)" }
}

extension ModelConfiguration {
  /// The sync server this store syncs through; `nil` (the default) for a store that doesn't
  /// sync. With settings, every save also records its changes for the server (in the save's
  /// transaction), and a ``SyncEngine`` made for the container sends and receives them.
  ///
  /// Only SQLite stores sync (a PostgreSQL store is already shared: opening one with sync
  /// settings fails). A writable container makes the sync tables once, when it opens; a
  /// read-only one (``allowsSave`` off) reads the store as it is, writes nothing and doesn't
  /// sync (``SyncEngine/init(container:)`` refuses it).
  ///
  /// For example:
  ///
  /// ```swift
  /// var configuration = ModelConfiguration.url(storeURL)
  /// configuration.sync = SyncSettings(server: serverURL, space: "family", token: token)
  /// let container = try ModelContainer(for: Trip.self, configurations: configuration)
  /// let sync = try SyncEngine(container: container)
  /// ```
  public var sync: SyncSettings? {
    get { saveParticipant?.participant as? SyncSettings }
    set { saveParticipant = newValue.map { ConfiguredSaveParticipant(participant: $0) } }
  }
}

extension SyncSettings: SaveParticipant {
  /// Nothing, when the store keeps a history: the save's history row is what sync records it
  /// from, later (SyncLocalStore+SyncOffEdits.swift), so a save with sync on writes what one
  /// with it off writes. Without a history (``HistoryRetention/off``), stamps the save's changed
  /// properties and adds its outbox entry, in the save's transaction.
  package func recordSave(_ changeSet: ChangeSet, container: ModelContainer, db: StoreConnection)
    throws
  {
    guard !container.configuration.historyRetention.records else { return }
    try SyncLocalStore.recordSave(changeSet, container: container, db: db)
  }

  /// Makes the sync tables and the replica id in the store, once per open of a writable
  /// container (not in each save or pull).
  package func prepare(_ container: ModelContainer) throws {
    guard container.pool.engine is SQLiteStoreEngine else {
      throw SyncError(
        .unsupportedStore,
        message:
          "Can't turn sync on for a PostgreSQL store: only SQLite stores sync (a PostgreSQL "
          + "store is shared already). Remove `configuration.sync`, or open an SQLite store.")
    }
    try container.pool.write { db in
      try db.execute(SyncLocalStore.schemaSQL)
      try SyncLocalStore.foldRegisters(db)
      try SyncLocalStore.addConflictColumns(db)
      _ = try SyncLocalStore.replica(db)
      try SyncLocalStore.startRecordingHistory(db)
    }
  }

  package func isSame(as other: any SaveParticipant) -> Bool { (other as? SyncSettings) == self }

  /// The history this container's saves keep: the saves not recorded for sync yet (all of
  /// them while the device is offline; an app that stays offline long keeps its history
  /// longer than its retention says, as it kept its outbox before).
  package func keptHistory(_ db: StoreConnection) throws -> Int64? {
    try SyncLocalStore.state(SyncLocalStore.recordedTokenKey, db).flatMap { Int64($0) }
  }
}
