import Foundation
import KuraBase
import KuraSQLite

extension ModelContainer {
  /// The token of the last save recorded in the store's history, by any process.
  ///
  /// For example:
  ///
  /// ```swift
  /// let token = try container.currentHistoryToken()
  /// ```
  ///
  /// - Returns: The token; ``HistoryToken/start`` before the first save.
  /// - Throws: ``StoreError`` when the store cannot be read.
  public func currentHistoryToken() throws -> HistoryToken {
    try readStore("read the history of") { try ChangeHistory.latestToken($0) }
  }

  /// The change sets saved after `token`, by any context of any process, oldest first.
  ///
  /// For example:
  ///
  /// ```swift
  /// for changeSet in try container.history(since: lastSeen) {
  ///   print(changeSet.inserted(Trip.self))
  ///   lastSeen = changeSet.token
  /// }
  /// ```
  ///
  /// - Parameter token: The last change set already handled; ``HistoryToken/start`` for all.
  /// - Returns: The change sets.
  /// - Throws: ``StoreError/Code/historyTrimmed`` when saves after `token` are no longer kept
  ///   (see ``ModelConfiguration/historyRetention``): fetch the models again and continue from
  ///   ``currentHistoryToken()``. ``StoreError`` when the store cannot be read.
  public func history(since token: HistoryToken) throws -> [ChangeSet] {
    try readStore("read the history of") { db in
      let horizon = try ChangeHistory.horizon(db)  // before the snapshot the reads share
      return try db.transaction(.read) {
        let trimmed = try ChangeHistory.trimmedThrough(db)
        if token.rawValue < trimmed {
          let file = storeLabel(storeURL)
          throw StoreError(
            .historyTrimmed, url: storeURL,
            message:
              "Can't read the history of store \(file) since token \(token): the saves up to "
              + "token \(trimmed) were trimmed (see `ModelConfiguration.historyRetention`). Fetch "
              + "the models again and continue from `currentHistoryToken()`.")
        }
        return try ChangeHistory.changeSets(since: token, below: horizon, in: db)
      }
    }
  }

  /// Deletes the history recorded up to and including `token` (the change sets after it stay,
  /// and so does the newest change set, which keeps tokens growing).
  ///
  /// For example: `try container.trimHistory(through: oldestTokenStillNeeded)`.
  ///
  /// - Parameter token: The last change set to delete.
  /// - Throws: ``StoreError`` when the store cannot be written.
  public func trimHistory(through token: HistoryToken) throws {
    if activeWriteHere != nil { throw nestedWrite() }
    do {
      try pool.write { db in
        // The newest row stays: it keeps the next token above every token handed out.
        // Never through the horizon: a save still running may commit below it.
        let wanted = min(token.rawValue, try ChangeHistory.horizonCap(db))
        guard db.engine.hasConsecutiveTokens else {
          let newest = try db.queryFirst("SELECT max(token) FROM kura_history") {
            $0.isNull(at: 0) ? nil : $0.int64(at: 0)
          }
          guard let newest, let newest else { return }
          try ChangeHistory.deleteHistory(through: min(wanted, newest - 1), in: db)
          return
        }
        try db.run(
          "DELETE FROM kura_history WHERE token <= ? AND token < "
            + "(SELECT max(token) FROM kura_history)", [.integer(wanted)])
        let latest = try ChangeHistory.latestToken(db).rawValue
        let through = min(wanted, latest - 1)
        if through > 0 { try ChangeHistory.recordTrim(through: through, in: db) }
      }
    } catch {
      throw StoreError.wrapping(error, url: storeURL, doing: "trim the history of")
    }
  }

  /// The change sets of every save from now on, by any context of any process using the store,
  /// as an asynchronous sequence that ends when the task reading it is cancelled.
  ///
  /// The sequence is lossless and in token order: it never skips a save. A read of the
  /// history that fails (the server is unreachable) is retried with back-off. When saves were
  /// trimmed before the sequence read them (another container keeps less history, or
  /// ``trimHistory(through:)``), the sequence throws ``StoreError/Code/historyTrimmed``: fetch
  /// the models again and start a new sequence.
  ///
  /// For example:
  ///
  /// ```swift
  /// for try await changeSet in try container.changeSets() {
  ///   print("trips added:", changeSet.inserted(Trip.self))
  /// }
  /// ```
  ///
  /// - Returns: The sequence.
  /// - Throws: ``StoreError`` when the store cannot be watched; the sequence throws
  ///   ``StoreError/Code/historyTrimmed`` when saves it had not read were trimmed.
  public func changeSets() throws -> AsyncThrowingStream<ChangeSet, any Error> {
    let (stream, continuation) = AsyncThrowingStream<ChangeSet, any Error>.makeStream()
    let observation = try hub.subscribe(models: nil) { result in
      switch result {
      case .success(let changeSets):
        for changeSet in changeSets { continuation.yield(changeSet) }
      case .failure(let error):
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in observation.cancel() }
    return stream
  }

  /// An empty change set at the current history position.
  package func emptyChangeSet() throws -> ChangeSet {
    ChangeSet.empty(at: try currentHistoryToken())
  }

  package func readStore<Result>(_ action: String, _ body: (StoreConnection) throws -> Result)
    throws
    -> Result
  {
    do {
      return try read(body)
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: storeURL, doing: action)
    }
  }
}
