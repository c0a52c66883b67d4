import Foundation
import KuraBase
import KuraSQLite

extension SortDescriptor where Compared: PersistentModel {
  /// Sorts by a `Bool` property: `false` before `true` in the forward order.
  ///
  /// `Bool` is not `Comparable`, so Foundation has no such initializer; Kura adds one, and the
  /// store sorts by the stored 0 or 1 in SQL.
  ///
  /// For example:
  ///
  /// ```swift
  /// let open = FetchDescriptor<Activity>(sortBy: [SortDescriptor(\.isComplete), SortDescriptor(\.name)])
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: The property.
  ///   - order: `.forward` (false first) or `.reverse` (true first).
  public init(_ keyPath: any KeyPath<Compared, Bool> & Sendable, order: SortOrder = .forward) {
    self.init(sendable(keyPath.appending(path: \Bool.kuraSortRank)), order: order)
  }

  /// Sorts by an optional `Bool` property: `nil`, then `false`, then `true` in the forward order.
  ///
  /// For example:
  ///
  /// ```swift
  /// let byAnswer = FetchDescriptor<Survey>(sortBy: [SortDescriptor(\.answer, order: .reverse)])
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: The property.
  ///   - order: `.forward` (nil first) or `.reverse` (true first).
  public init(_ keyPath: any KeyPath<Compared, Bool?> & Sendable, order: SortOrder = .forward) {
    self.init(sendable(keyPath.appending(path: \Bool?.kuraSortRank)), order: order)
  }
}

extension Bool {
  /// 0 for `false`, 1 for `true`: the sort key of ``SortDescriptor`` for `Bool` properties.
  package var kuraSortRank: Int { self ? 1 : 0 }
}

extension Optional where Wrapped == Bool {
  /// `nil`, 0 or 1: the sort key of ``SortDescriptor`` for optional `Bool` properties.
  package var kuraSortRank: Int? { self.map { $0 ? 1 : 0 } }
}

/// `keyPath` as a `Sendable` key path.
///
/// Safety: a key path built by appending two key paths that capture nothing is immutable and
/// captures nothing, so it is as `Sendable` as a key path literal; `Sendable` is a marker protocol,
/// so the existential has the same layout.
private func sendable<Root, Value>(_ keyPath: KeyPath<Root, Value>)
  -> any KeyPath<Root, Value> & Sendable
{
  unsafeBitCast(keyPath, to: (any KeyPath<Root, Value> & Sendable).self)
}
