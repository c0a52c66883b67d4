// What the snippets of Sources/Kura/Kura.docc/SyncingAcrossDevices.md assume (see
// scripts/check-snippets): the Trip model and a sync engine at hand.
import Foundation
import Kura
import KuraSync

public func given<Value>() -> Value { fatalError("snippets are type-checked, never run") }

public struct Trip: PersistentModel {
  public var id = UUID()
  public var name: String
  public init(name: String) { self.name = name }
}

public var sync: SyncEngine { given() }
