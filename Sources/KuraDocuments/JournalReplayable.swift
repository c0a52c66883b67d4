import Foundation
import KuraBase

/// A collection whose changes can be kept in a document's journal and replayed on open.
package protocol JournalReplayable {
  /// Applies decoded journal records in order.
  mutating func replay(_ records: [DocumentJournal.Record], positions: inout PositionIndex?)
    throws
}

/// The positions of a collection's elements by identifier.
// Safety: the table holds identifiers copied from a `Sendable` document value; it lives inside
// the store's mutex-guarded state and is never shared outside it.
package struct PositionIndex: @unchecked Sendable {
  package var table: [AnyHashable: Int] = [:]
}

/// A decoded journal record of a collection, not applied yet.
package enum JournalChange<Element: Identifiable> {
  case upsert(Element)
  case remove(Element.ID)
}

/// The payload of a `remove` record.
package struct JournalRemoval<ID: Codable>: Codable {
  package var id: ID
}

extension Array: JournalReplayable where Element: Identifiable & Codable, Element.ID: Codable {
  package mutating func replay(_ records: [DocumentJournal.Record], positions: inout PositionIndex?)
    throws
  {
    // Every record is decoded before any is applied: a record that does not decode leaves the
    // collection as it was, not half changed.
    let decoder = JSONDecoder()
    var changes: [JournalChange<Element>] = []
    changes.reserveCapacity(records.count)
    for record in records {
      switch record.operation {
      case .append, .update:
        changes.append(.upsert(try decoder.decode(Element.self, from: record.json)))
      case .remove:
        let removal = try decoder.decode(JournalRemoval<Element.ID>.self, from: record.json)
        changes.append(.remove(removal.id))
      case .compacted:
        continue
      }
    }
    for change in changes {
      switch change {
      case .upsert(let element): upsert(element, positions: &positions)
      case .remove(let id): _ = removeElement(id: id, positions: &positions)
      }
    }
  }

  /// The position of an element, using (and building when needed) the position index.
  package func position(of id: Element.ID, positions: inout PositionIndex?) -> Int? {
    if positions == nil {
      var index = PositionIndex()
      index.table.reserveCapacity(count)
      for (offset, element) in enumerated() where index.table[AnyHashable(element.id)] == nil {
        index.table[AnyHashable(element.id)] = offset
      }
      positions = index
    }
    return positions?.table[AnyHashable(id)]
  }

  /// Replaces the element with the same identifier, or appends it when there is none.
  package mutating func upsert(_ element: Element, positions: inout PositionIndex?) {
    if let index = position(of: element.id, positions: &positions) {
      self[index] = element
    } else {
      positions?.table[AnyHashable(element.id)] = count
      append(element)
    }
  }

  /// Removes the element with an identifier; returns it, or `nil` when there is none.
  package mutating func removeElement(id: Element.ID, positions: inout PositionIndex?) -> Element? {
    guard let index = position(of: id, positions: &positions) else { return nil }
    positions = nil
    return remove(at: index)
  }
}
