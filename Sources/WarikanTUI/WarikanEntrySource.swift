/// Where the app's entries live: the warikan entry book (WarikanKit), seen through what the
/// screen needs. ``WarikanApp`` runs the model's effects against it.
///
/// For example:
///
/// ```swift
/// let source = try EntryBookSource.open()
/// try source.add(cash: 2800, memo: "高速代金")
/// ```
package protocol WarikanEntrySource: AnyObject {
  /// Every entry, oldest first.
  ///
  /// - Returns: The entries.
  /// - Throws: The book's error when it cannot be read.
  func entries() throws -> [EntryRow]

  /// Adds an entry stamped with the current local time.
  ///
  /// - Parameters:
  ///   - cash: Yen, above zero.
  ///   - memo: The memo.
  /// - Throws: The book's error when it cannot be written.
  func add(cash: Int, memo: String) throws

  /// Deletes one entry.
  ///
  /// - Parameter id: The entry's identifier.
  /// - Throws: The book's error when it cannot be written.
  func delete(id: EntryRow.ID) throws

  /// Deletes every entry and the file.
  ///
  /// - Throws: The book's error when it cannot be removed.
  func reset() throws

  /// Calls `onChange` (on any thread) whenever the entries change, here or in another process,
  /// until the returned token is cancelled.
  ///
  /// - Parameter onChange: What to call.
  /// - Returns: Something whose `cancel()` stops the calls.
  /// - Throws: The book's error when it cannot be watched.
  func observe(_ onChange: @escaping @Sendable () -> Void) throws -> any WarikanCancellable
}

/// Stops an observation.
///
/// For example: `observation.cancel()`.
package protocol WarikanCancellable {
  /// Stops the calls.
  func cancel()
}

/// Where the terminal session's scene state lives (the draft and the selected tab).
///
/// For example:
///
/// ```swift
/// let drafts = try SceneDraftStore(sceneID: WarikanSceneID.current())
/// let draft = drafts.load()
/// ```
package protocol WarikanDraftStore: AnyObject {
  /// The draft kept for this scene, or `nil` when there is none.
  ///
  /// - Returns: The draft.
  func load() -> WarikanDraft?

  /// Keeps the draft.
  ///
  /// - Parameter draft: The draft.
  /// - Throws: The store's error when it cannot be written.
  func save(_ draft: WarikanDraft) throws

  /// Forgets the scene (a normal quit).
  ///
  /// - Throws: The store's error when it cannot be removed.
  func discard() throws
}
