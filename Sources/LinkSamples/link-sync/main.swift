// Links the sync client (KuraSync): scripts/check-linking reads which libraries this program
// needs.
import Foundation
import KuraStore
import KuraSync

print(SyncStatus.self)
