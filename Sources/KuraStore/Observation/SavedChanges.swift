import KuraBase
import KuraSQLite

/// What a save changed, by model, in the order the models were first changed: the first model
/// held inline and any others in an array, so a save that changes one model (most do) allocates
/// no list for it. Looked through without hashing (a save changes one or a few models).
package struct SavedChanges {
  /// The first model changed and its changes, `nil` while nothing changed.
  package private(set) var first: (model: String, changes: ChangeSet.ModelChanges)?
  /// The models changed after the first, in order.
  package private(set) var others: [(model: String, changes: ChangeSet.ModelChanges)] = []

  package init() {}

  /// The changes of `list`, in its order (a model listed twice has both entries' changes).
  package init(_ list: [(model: String, changes: ChangeSet.ModelChanges)]) {
    for (model, changes) in list { add(changes, model: model) }
  }

  /// Whether no model changed.
  package var isEmpty: Bool { first == nil }

  /// How many models changed.
  package var count: Int { first == nil ? 0 : 1 + others.count }

  /// Adds `more` to what `model` changed (nothing when `more` is empty).
  package mutating func add(_ more: ChangeSet.ModelChanges, model: String) {
    guard !more.isEmpty else { return }
    guard var head = first else {
      first = (model, more)
      return
    }
    if head.model == model {
      // Taken out first, so the arrays appended to are uniquely referenced (no copy).
      first = nil
      head.changes.append(more)
      first = head
      return
    }
    for index in others.indices where others[index].model == model {
      others[index].changes.append(more)
      return
    }
    others.append((model, more))
  }

  /// Calls `body` with each model's name and changes, in order.
  package func forEach(_ body: (String, ChangeSet.ModelChanges) throws -> Void) rethrows {
    guard let first else { return }
    try body(first.model, first.changes)
    for (model, changes) in others { try body(model, changes) }
  }
}

extension ChangeSet.ModelChanges {
  /// Appends the ids `more` lists to these.
  package mutating func append(_ more: ChangeSet.ModelChanges) {
    inserted += more.inserted
    updated += more.updated
    deleted += more.deleted
  }
}
