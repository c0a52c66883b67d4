/// What the terminal session's scene state keeps: the half-typed amount and memo and the
/// selected tab. Restored when the app reopens in the same session; discarded on a normal quit.
///
/// For example:
///
/// ```swift
/// let draft = WarikanDraft(amount: "2800", memo: "高速代金", tab: .add)
/// ```
package struct WarikanDraft: Hashable, Sendable, Codable {
  /// The amount field's text.
  package var amount: String
  /// The memo field's text.
  package var memo: String
  /// The selected tab.
  package var tab: WarikanTab

  /// Creates a draft.
  ///
  /// - Parameters:
  ///   - amount: The amount field's text.
  ///   - memo: The memo field's text.
  ///   - tab: The selected tab.
  package init(amount: String = "", memo: String = "", tab: WarikanTab = .add) {
    self.amount = amount
    self.memo = memo
    self.tab = tab
  }
}
