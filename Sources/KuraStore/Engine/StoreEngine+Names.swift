import Foundation
import KuraBase
import KuraSQLite

extension StoreEngine {
  /// The engine keeps names of any length: a name is its own identifier.
  package func identifier(_ name: String) -> String { name }
}
