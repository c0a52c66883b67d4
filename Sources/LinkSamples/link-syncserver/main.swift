// Links the sync server (KuraSyncServer): scripts/check-linking reads which libraries this
// program needs.
import KuraSyncServer

print(SyncService.maximumBodyBytes)
