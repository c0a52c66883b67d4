import KuraBase
import KuraSQLite
import Foundation

extension StoreEngine {
  /// The engine keeps names of any length: a name is its own identifier.
  package func identifier(_ name: String) -> String { name }
}
