/// The control that receives keys inside a tab.
///
/// For example: in the Add tab, Tab moves from `.amount` to `.memo` to `.register`.
package enum WarikanFocus: Hashable, Sendable {
  /// The amount field (Add).
  case amount
  /// The memo field (Add).
  case memo
  /// The Register button (Add).
  case register
  /// The Reset button (Add).
  case reset
  /// The button that opens the full list (Add; shown only when there are entries).
  case showList
  /// The list of entries (List).
  case entries
  /// One of the fixed people buttons, 2, 3 or 4 (Calc).
  case people(Int)
  /// The custom number of people field (Calc).
  case customPeople

  /// Whether typed characters go into this control.
  package var isTextField: Bool {
    switch self {
    case .amount, .memo, .customPeople: true
    default: false
    }
  }
}
