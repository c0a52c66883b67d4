import Foundation
import KuraBase

extension DocumentStore {
  /// Appends an element, saved (as one journal record, not a rewrite of the file) when the call
  /// returns.
  ///
  /// For example:
  ///
  /// ```swift
  /// try store.append(CashData(memo: "高速代金", cash: 2800, time: "22:38"))
  /// ```
  ///
  /// - Parameter element: The element; its identifier must not be in the collection yet.
  /// - Throws: ``DocumentError``: ``DocumentError/Code/duplicateElement`` when an element with
  ///   the same identifier is there, or ``DocumentError/Code/cannotWrite``.
  public func append<Element>(_ element: Element) throws
  where Value == [Element], Element: Identifiable & Codable, Element.ID: Codable {
    try journal(.append, json: encode(element)) { state in
      if state.value.position(of: element.id, positions: &state.positions) != nil {
        throw DocumentError(
          .duplicateElement, file: url,
          reason: "an element with the identifier `\(element.id)` is already there")
      }
      return true
    } apply: { state in
      state.value.upsert(element, positions: &state.positions)
    }
  }

  /// Replaces the element with the same identifier, saved (as one journal record) when the
  /// call returns.
  ///
  /// For example:
  ///
  /// ```swift
  /// var entry = store.value[0]
  /// entry.memo = "ガソリン代"
  /// try store.update(entry)
  /// ```
  ///
  /// - Parameter element: The new version of an element already in the collection.
  /// - Throws: ``DocumentError``: ``DocumentError/Code/elementNotFound`` when no element has its
  ///   identifier, or ``DocumentError/Code/cannotWrite``.
  public func update<Element>(_ element: Element) throws
  where Value == [Element], Element: Identifiable & Codable, Element.ID: Codable {
    try journal(.update, json: encode(element)) { state in
      guard state.value.position(of: element.id, positions: &state.positions) != nil else {
        throw DocumentError(
          .elementNotFound, file: url, reason: "no element has the identifier `\(element.id)`")
      }
      return true
    } apply: { state in
      state.value.upsert(element, positions: &state.positions)
    }
  }

  /// Removes the element with an identifier, saved (as one journal record) when the call
  /// returns.
  ///
  /// For example:
  ///
  /// ```swift
  /// try store.remove(id: entry.id)
  /// ```
  ///
  /// - Parameter id: The identifier.
  /// - Returns: The removed element, or `nil` when there was none (nothing is written then).
  /// - Throws: ``DocumentError/Code/cannotWrite`` when the change can't be saved.
  @discardableResult
  public func remove<Element>(id: Element.ID) throws -> Element?
  where Value == [Element], Element: Identifiable & Codable, Element.ID: Codable {
    var removed: Element?
    try journal(.remove, json: encode(JournalRemoval(id: id))) { state in
      state.value.position(of: id, positions: &state.positions) != nil
    } apply: { state in
      removed = state.value.removeElement(id: id, positions: &state.positions)
    }
    return removed
  }

  private func encode<T: Encodable>(_ value: T) throws -> Data {
    do {
      return try recordEncoder.encode(value)
    } catch {
      throw DocumentError(.cannotEncode, file: url, reason: "\(error)")
    }
  }

  /// Writes one journal record when `check` (run on the latest state) says so, applies the
  /// change in memory, and compacts when the journal has grown large.
  private func journal(
    _ operation: DocumentJournal.Operation, json: Data,
    check: (inout DocumentEngine<Value>.State) throws -> Bool,
    apply: (inout DocumentEngine<Value>.State) -> Void
  ) throws {
    try write { state in
      guard try check(&state) else { return ((), false) }
      if json.count >= DocumentJournal.maximumPayload {
        // A record this large costs as much as rewriting the file, which has no size limit.
        var changed = state
        apply(&changed)
        try engine.replaceFile(with: changed.value, &state)
        return ((), true)
      }
      try engine.append(DocumentJournal.frame(operation, json: json), to: &state)
      apply(&state)
      // The change is saved once its record is written: a compaction that fails now (a full
      // disk, a file that can't be replaced) leaves it in the journal, to be compacted later.
      if engine.needsCompaction(state) {
        do {
          try engine.replaceFile(with: state.value, &state)
        } catch {
          state.nextCompactionAttempt = state.journalEnd * 2
        }
      }
      return ((), true)
    }
  }
}
