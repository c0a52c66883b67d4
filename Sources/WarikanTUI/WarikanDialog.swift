import WarikanKit

/// A question the app asks before something that cannot be undone.
///
/// For example: Reset opens `WarikanDialog(action: .reset)`; Cancel is chosen until the user
/// moves to the confirming button.
package struct WarikanDialog: Hashable, Sendable {
  /// What confirming does.
  package enum Action: Hashable, Sendable {
    /// Delete every entry.
    case reset
    /// Delete this entry.
    case delete(CashData)
  }

  /// What confirming does.
  package var action: Action
  /// Whether the confirming button (rather than Cancel) is selected.
  package var confirmSelected: Bool = false

  /// Creates a dialog with Cancel selected.
  ///
  /// - Parameter action: What confirming does.
  package init(action: Action) {
    self.action = action
  }
}
