import Foundation

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
      try db.transaction(.read) {
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
        return try ChangeHistory.changeSets(since: token, in: db)
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
        try db.run(
          "DELETE FROM kura_history WHERE token <= ? AND token < "
            + "(SELECT max(token) FROM kura_history)", [.integer(token.rawValue)])
        let latest = try ChangeHistory.latestToken(db).rawValue
        let through = min(token.rawValue, latest - 1)
        if through > 0 { try ChangeHistory.recordTrim(through: through, in: db) }
      }
    } catch {
      throw StoreError.wrapping(error, url: storeURL, doing: "trim the history of")
    }
  }

  /// The change sets of every save from now on, by any context of any process using the store,
  /// as an asynchronous sequence that ends when the task reading it is cancelled.
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
  /// - Throws: ``StoreError`` when the store cannot be watched.
  public func changeSets() throws -> AsyncStream<ChangeSet> {
    let (stream, continuation) = AsyncStream<ChangeSet>.makeStream()
    let observation = try hub.subscribe(models: nil) { changeSets in
      for changeSet in changeSets { continuation.yield(changeSet) }
    }
    continuation.onTermination = { _ in observation.cancel() }
    return stream
  }

  /// An empty change set at the current history position.
  func emptyChangeSet() throws -> ChangeSet {
    ChangeSet.empty(at: try currentHistoryToken())
  }

  func readStore<Result>(_ action: String, _ body: (StoreConnection) throws -> Result) throws
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
