// Links KuraDocuments alone: scripts/check-linking reads which libraries this program needs.
import Foundation
import KuraDocuments

let url = FileManager.default.temporaryDirectory.appendingPathComponent("link-sample.json")
let store = try DocumentStore<[String]>(.url(url), defaultValue: [])
print(store.value.count)
