import Testing

@testable import Kura

/// Expects `body` to throw a ``StoreError`` with exactly `code` (a different code, another
/// error or none is an issue naming what happened) and returns the error when it did.
@discardableResult
package func expectStoreError(
  _ code: StoreError.Code, _ comment: Comment? = nil,
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> StoreError? {
  let context = comment.map { " (\($0.rawValue))" } ?? ""
  do {
    try body()
    Issue.record(
      "expected StoreError \(code)\(context); nothing was thrown", sourceLocation: sourceLocation)
  } catch let error as StoreError {
    if error.code == code { return error }
    Issue.record(
      "expected StoreError \(code)\(context), got \(error.code): \(error)",
      sourceLocation: sourceLocation)
  } catch {
    Issue.record(
      "expected StoreError \(code)\(context), got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}
