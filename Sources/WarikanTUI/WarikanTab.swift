/// The app's tabs, in the order the tab bar shows them (the seed's TabView).
///
/// For example: `WarikanTab.add.title` is `"Add"`.
package enum WarikanTab: String, CaseIterable, Codable, Hashable, Sendable {
  /// The total, the amount and memo fields, Register, Reset and the latest entries.
  case add
  /// Every entry, newest first.
  case list
  /// The split: people and each person's share.
  case calc

  /// The label in the tab bar.
  package var title: String {
    switch self {
    case .add: "Add"
    case .list: "List"
    case .calc: "Calc"
    }
  }

  /// The tab to the right (wrapping around).
  package var next: WarikanTab {
    let all = Self.allCases
    let index = all.firstIndex(of: self) ?? 0
    return all[(index + 1) % all.count]
  }

  /// The tab to the left (wrapping around).
  package var previous: WarikanTab {
    let all = Self.allCases
    let index = all.firstIndex(of: self) ?? 0
    return all[(index + all.count - 1) % all.count]
  }
}
