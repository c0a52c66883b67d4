import Foundation
import KuraBase
import KuraSQLite

/// What one save changed: the ids of the inserted, updated and deleted models of each type.
///
/// Every ``ModelContext/save()`` that changes something returns one and records it in the
/// store's history, where other contexts and processes read it with
/// ``ModelContainer/history(since:)`` or ``ModelContainer/changeSets()``. Deletes made by a
/// ``DeleteRule/cascade`` rule appear as deletes and references set to `nil` by
/// ``DeleteRule/nullify`` as updates.
///
/// For example:
///
/// ```swift
/// let changes = try context.save()
/// print(changes.inserted(Trip.self), changes.deleted(Activity.self))
/// ```
public struct ChangeSet: Sendable, Hashable {
  /// The changes of one model type, as id texts (a UUID's `uuidString`, an integer's digits).
  ///
  /// For example: `changeSet.changes["Trip"]?.inserted`.
  public struct ModelChanges: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Ids of the models inserted.
    ///
    /// For example: `print(changeSet.changes["Trip"]?.inserted ?? [])`.
    public var inserted: [String] {
      get { insertedIDs.texts }
      set { insertedIDs = .texts(newValue) }
      // In place: `changes.inserted.append(id)` in a loop would otherwise copy the whole
      // array at each append (a get and a set), and an initial sync of 20,000 rows spent
      // most of its time doing so.
      _modify {
        var texts = insertedIDs.takeTexts()
        defer { insertedIDs = .texts(texts) }
        yield &texts
      }
    }
    /// Ids of the models updated.
    public var updated: [String]
    /// Ids of the models deleted.
    public var deleted: [String]

    /// The inserted ids as the save collected them: a save of new rows with integer ids keeps
    /// the integers, and their text is made when it is read (most change sets are never read
    /// whole: making each id's text cost a large insert about 150 instructions a row).
    package var insertedIDs: IDList

    /// Ids as texts, or as integers turned into their digits when read.
    package enum IDList: Sendable {
      case texts([String])
      case integers([Int64])

      /// The ids' texts.
      package var texts: [String] {
        switch self {
        case .texts(let texts): return texts
        case .integers(let integers): return integers.map(decimalText)
        }
      }

      /// The ids' texts, leaving the list empty: the array returned is the only reference to
      /// its storage, so changing it copies nothing.
      package mutating func takeTexts() -> [String] {
        switch self {
        case .texts(let texts):
          self = .integers([])
          return texts
        case .integers(let integers):
          self = .integers([])
          return integers.map(decimalText)
        }
      }

      package var isEmpty: Bool {
        switch self {
        case .texts(let texts): return texts.isEmpty
        case .integers(let integers): return integers.isEmpty
        }
      }
    }

    package init(inserted: [String] = [], updated: [String] = [], deleted: [String] = []) {
      self.insertedIDs = .texts(inserted)
      self.updated = updated
      self.deleted = deleted
    }

    /// Whether nothing changed.
    package var isEmpty: Bool { insertedIDs.isEmpty && updated.isEmpty && deleted.isEmpty }

    private enum CodingKeys: String, CodingKey {
      case inserted, updated, deleted
    }

    /// Reads the three id lists (`inserted`, `updated`, `deleted`, each an array of texts).
    ///
    /// For example: `let changes = try JSONDecoder().decode(ChangeSet.ModelChanges.self, from: json)`.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` when a list is missing or not an array of texts.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      self.init(
        inserted: try container.decode([String].self, forKey: .inserted),
        updated: try container.decode([String].self, forKey: .updated),
        deleted: try container.decode([String].self, forKey: .deleted))
    }

    /// Writes the three id lists as arrays of texts.
    ///
    /// For example: `let json = try JSONEncoder().encode(changeSet.changes["Trip"])`.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(inserted, forKey: .inserted)
      try container.encode(updated, forKey: .updated)
      try container.encode(deleted, forKey: .deleted)
    }

    /// Whether both list the same ids in the same order.
    ///
    /// For example: `if changes == previous { return }`.
    ///
    /// - Parameters:
    ///   - lhs: Changes of a model type.
    ///   - rhs: Other changes.
    /// - Returns: `true` when each list is equal.
    public static func == (lhs: ModelChanges, rhs: ModelChanges) -> Bool {
      lhs.updated == rhs.updated && lhs.deleted == rhs.deleted && lhs.inserted == rhs.inserted
    }

    /// The three lists, as `ModelChanges(inserted: ["1"], updated: [], deleted: [])`, however
    /// the save kept them.
    ///
    /// For example: `if let trips = changeSet.changes["Trip"] { print(trips) }`.
    public var description: String {
      "ModelChanges(inserted: \(inserted), updated: \(updated), deleted: \(deleted))"
    }

    /// Hashes the three lists (what `==` compares).
    ///
    /// For example: `let seen: Set<ChangeSet.ModelChanges> = [changes]`.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(inserted)
      hasher.combine(updated)
      hasher.combine(deleted)
    }
  }

  /// The history position of this save; ``ModelContainer/history(since:)`` with it returns the
  /// saves after this one.
  public let token: HistoryToken
  /// When the save committed.
  public let date: Date
  /// The changes by each model's stored name, its ``PersistentModel/schemaName`` (such as
  /// `Trip`); ``inserted(_:)``, ``updated(_:)`` and ``deleted(_:)`` look them up by type.
  ///
  /// For example: `for (model, changes) in changeSet.changes { print(model, changes.inserted) }`.
  public var changes: [String: ModelChanges] {
    switch storage {
    case .byModel(let changes): return changes
    case .oneModel(let model, let changes): return [model: changes]
    }
  }

  /// The changes as the save made them: a save of one model type (most saves) keeps its
  /// changes without a dictionary, whose storage and hashing every save would pay whether or
  /// not anyone reads ``changes``.
  private enum Storage: Sendable {
    case byModel([String: ModelChanges])
    case oneModel(String, ModelChanges)
  }

  private let storage: Storage

  package init(token: HistoryToken, date: Date, changes: [String: ModelChanges]) {
    self.token = token
    self.date = date
    self.storage = .byModel(changes)
  }

  /// A change set of what a save changed (one model's changes kept as they are, several in a
  /// dictionary).
  package init(token: HistoryToken, date: Date, changes: SavedChanges) {
    self.token = token
    self.date = date
    if let first = changes.first, changes.others.isEmpty {
      self.storage = .oneModel(first.model, first.changes)
    } else {
      var byModel = [String: ModelChanges](minimumCapacity: changes.count)
      changes.forEach { model, modelChanges in byModel[model] = modelChanges }
      self.storage = .byModel(byModel)
    }
  }

  /// A change set of the models' changes in the order the save made them (each model once).
  package init(
    token: HistoryToken, date: Date, changes: [(model: String, changes: ModelChanges)]
  ) {
    self.token = token
    self.date = date
    if changes.count == 1 {
      self.storage = .oneModel(changes[0].model, changes[0].changes)
    } else {
      var byModel = [String: ModelChanges](minimumCapacity: changes.count)
      for (model, modelChanges) in changes { byModel[model] = modelChanges }
      self.storage = .byModel(byModel)
    }
  }

  /// The changes of the model type stored as `name`, if any.
  private func changes(of name: String) -> ModelChanges? {
    switch storage {
    case .byModel(let changes): return changes[name]
    case .oneModel(let model, let changes): return model == name ? changes : nil
    }
  }

  /// Whether two change sets have the same token, date and changes.
  ///
  /// For example: `if changeSet == previous { return }`.
  ///
  /// - Parameters:
  ///   - lhs: A change set.
  ///   - rhs: Another change set.
  /// - Returns: `true` when they are equal.
  public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
    lhs.token == rhs.token && lhs.date == rhs.date && lhs.changes == rhs.changes
  }

  /// Hashes the token, date and changes (what `==` compares).
  ///
  /// For example: `let seen: Set<ChangeSet> = [changeSet]`.
  ///
  /// - Parameter hasher: The hasher.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(token)
    hasher.combine(date)
    hasher.combine(changes)
  }

  /// An empty change set (a save with nothing to save).
  package static func empty(at token: HistoryToken) -> ChangeSet {
    ChangeSet(token: token, date: Date(), changes: [:])
  }

  /// Whether the save changed nothing.
  ///
  /// For example: `if changeSet.isEmpty { return }`.
  public var isEmpty: Bool {
    switch storage {
    case .byModel(let changes): return changes.values.allSatisfy(\.isEmpty)
    case .oneModel(_, let changes): return changes.isEmpty
    }
  }

  /// Whether the save changed models of this type.
  ///
  /// For example: `if changeSet.contains(Trip.self) { reload() }`.
  ///
  /// - Parameter model: The model type.
  /// - Returns: `true` when some model of the type was inserted, updated or deleted.
  public func contains<Model: PersistentModel>(_ model: Model.Type) -> Bool {
    changes(of: model.schemaName).map { !$0.isEmpty } ?? false
  }

  /// The ids of the models of a type that the save inserted.
  ///
  /// For example: `let added: [Trip.ID] = changeSet.inserted(Trip.self)`.
  ///
  /// - Parameter model: The model type.
  /// - Returns: The ids, in save order.
  public func inserted<Model: PersistentModel>(_ model: Model.Type) -> [Model.ID] {
    guard let changes = changes(of: model.schemaName) else { return [] }
    if case .integers(let integers) = changes.insertedIDs,
      let ids = integerIDs(integers, as: Model.ID.self)
    {
      return ids
    }
    return ids(changes.inserted, as: Model.ID.self)
  }

  /// The ids of the models of a type that the save updated.
  ///
  /// For example: `let changed: [Trip.ID] = changeSet.updated(Trip.self)`.
  ///
  /// - Parameter model: The model type.
  /// - Returns: The ids, in save order.
  public func updated<Model: PersistentModel>(_ model: Model.Type) -> [Model.ID] {
    ids(changes(of: model.schemaName)?.updated, as: Model.ID.self)
  }

  /// The ids of the models of a type that the save deleted (cascades included).
  ///
  /// For example: `let removed: [Activity.ID] = changeSet.deleted(Activity.self)`.
  ///
  /// - Parameter model: The model type.
  /// - Returns: The ids, in save order.
  public func deleted<Model: PersistentModel>(_ model: Model.Type) -> [Model.ID] {
    ids(changes(of: model.schemaName)?.deleted, as: Model.ID.self)
  }

  private func ids<ID>(_ texts: [String]?, as type: ID.Type) -> [ID] {
    (texts ?? []).compactMap { modelID(from: $0, as: type) }
  }

  /// Integer ids as `type`, without their texts (those the type can't hold left out, as
  /// `modelID(from:as:)` leaves them out); `nil` when `type` is not an integer type.
  private func integerIDs<ID>(_ integers: [Int64], as type: ID.Type) -> [ID]? {
    func exact<T: FixedWidthInteger>(_: T.Type) -> [ID]? {
      integers.compactMap { T(exactly: $0) as? ID }
    }
    switch type {
    case is Int.Type: return exact(Int.self)
    case is Int64.Type: return exact(Int64.self)
    case is Int32.Type: return exact(Int32.self)
    case is UInt.Type: return exact(UInt.self)
    case is UInt64.Type: return exact(UInt64.self)
    default: return nil
    }
  }
}

/// A model id from its text in the history (the inverse of `idText(_:)`).
package func modelID<ID>(from text: String, as type: ID.Type) -> ID? {
  switch type {
  case is UUID.Type: return UUID(uuidString: text) as? ID
  case is String.Type: return text as? ID
  case is Int.Type: return Int(text) as? ID
  case is Int64.Type: return Int64(text) as? ID
  case is Int32.Type: return Int32(text) as? ID
  case is UInt.Type: return UInt(text) as? ID
  case is UInt64.Type: return UInt64(text) as? ID
  default: return nil
  }
}

/// The text of a stored key, as the history records it.
package func idText(_ value: DatabaseValue) -> String {
  switch value {
  case .integer(let integer): return decimalText(integer)
  case .text(let text): return text
  case .real(let real): return String(real)
  case .blob(let data): return data.base64EncodedString()
  case .null: return ""
  }
}
