// Links the model store on SQLite (KuraStore) alone: scripts/check-linking reads which libraries
// this program needs.
import Foundation
import KuraStore

struct Note: PersistentModel {
  var id = UUID()
  var text: String
}
let container = try ModelContainer(for: Note.self, configurations: .inMemory)
print(try ModelContext(container).fetchCount(FetchDescriptor<Note>()))
