// Links KuraPreferences alone: scripts/check-linking reads which libraries this program needs.
import Foundation
import KuraPreferences

let file = FileManager.default.temporaryDirectory.appendingPathComponent("link-sample.prefs")
let preferences = try Preferences(fileURL: file)
print(preferences[Preferences.Key<Int>("launchCount", default: 0)])
