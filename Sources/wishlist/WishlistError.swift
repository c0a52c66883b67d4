import Foundation

/// A wish-list request that cannot be done (exit status 1), with what to do instead.
struct WishlistError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
