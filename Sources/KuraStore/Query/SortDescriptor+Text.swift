import Foundation
import KuraBase
import KuraSQLite

extension SortDescriptor {
  /// How this descriptor orders two models, with text (`String` and `String?` key paths without a
  /// string comparator) ordered by the store's total text order, ``SwiftStringSQL/order(_:_:)``,
  /// as SQL orders it; any other key as Foundation's `compare(_:_:)` does.
  package func kuraCompare(_ lhs: Compared, _ rhs: Compared) -> ComparisonResult {
    guard stringComparator == nil, let keyPath else { return compare(lhs, rhs) }
    let left = lhs[keyPath: keyPath]
    let right = rhs[keyPath: keyPath]
    let order: Int
    if let left = left as? String, let right = right as? String {
      order = SwiftStringSQL.order(left, right)
    } else if type(of: keyPath).valueType == String?.self {
      switch (left as? String?, right as? String?) {
      case (.some(.some(let left)), .some(.some(let right))):
        order = SwiftStringSQL.order(left, right)
      case (.some(.none), .some(.none)): order = 0
      case (.some(.none), _): order = -1
      default: order = 1
      }
    } else {
      return compare(lhs, rhs)
    }
    let forward: ComparisonResult =
      order < 0 ? .orderedAscending : (order > 0 ? .orderedDescending : .orderedSame)
    guard self.order == .reverse else { return forward }
    switch forward {
    case .orderedAscending: return .orderedDescending
    case .orderedDescending: return .orderedAscending
    case .orderedSame: return .orderedSame
    }
  }
}

extension Sequence {
  /// The elements sorted by `descriptors` as the store sorts (see
  /// ``SortDescriptor/kuraCompare(_:_:)``), keeping the order of equal elements.
  package func kuraSorted(using descriptors: [SortDescriptor<Element>]) -> [Element] {
    stableSorted(Array(self)) { lhs, rhs in
      for descriptor in descriptors {
        switch descriptor.kuraCompare(lhs, rhs) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: continue
        }
      }
      return false
    }
  }
}
