// A SwiftUI file of an app that keeps its preferences and scene state in Kura (the seeds' case):
// it imports both modules and writes every name unqualified, as the README does. On a Mac this
// compiles against the real SwiftUI; on Linux against the stand-in with SwiftUI's names, so a
// Kura name that clashes with one of SwiftUI's fails the build here ("ambiguous for type lookup").
import Foundation
import Kura
import Testing

#if canImport(SwiftUI)
  import SwiftUI
#else
  import SwiftUIStandIn
#endif

enum SortOption: String, Codable, Sendable { case title, date, completion }

extension Preferences.Key {
  static var sortOption: Preferences.Key<SortOption> { .init("sortOption", default: .title) }
  static var launchCount: Preferences.Key<Int> { .init("launchCount", default: 0) }
  static var fruits: Preferences.Key<String> { .init("fruits", default: "") }
  static var menu: Preferences.Key<String> { .init("menu", default: "") }
}

/// A view as the README writes it: `@Preference` (the app's standard suite) beside SwiftUI's own
/// property wrappers and views. Compiled only: making one would open the real standard suite.
struct SortOptionView: View {
  @Preference(.sortOption) var sortOption
  @Environment(\.scenePhase) var scenePhase
  @State var isEditing = false

  var body: some View {
    Text("Sorted by \(sortOption.rawValue)")
  }
}

/// The same view reading a suite it is given, so the test can make one.
struct SuiteSortOptionView: View {
  @Preference var sortOption: SortOption

  init(preferences: Preferences) {
    _sortOption = Preference(.sortOption, store: preferences)
  }

  var body: some View {
    Text("Sorted by \(sortOption.rawValue)")
  }
}

@Suite("A SwiftUI file using Kura's preferences")
struct SwiftUIFileTests {
  @Test @MainActor func readmePreferencesAndSceneStateCompileUnqualified() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("kura-apple-names-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: folder) }
    let environment = ["KURA_HOME": folder.path, "HOME": folder.path]

    // The README's "Preferences and scene state", with the folders pointed at this test's own.
    let locations = try Locations.app("customers", environment: environment)
    let preferences = try Preferences(locations: locations)
    preferences[.sortOption] = .date
    try preferences.update(.launchCount) { $0 + 1 }
    let shared = try Preferences(suite: "group.iOS17.M_Kaku", environment: environment)
    shared[.fruits] = "apple"
    let scene = try SceneState("main", locations: locations)
    scene[.menu] = "Ramen"

    let view = SuiteSortOptionView(preferences: preferences)
    #expect(view.sortOption == .date)
    #expect(preferences[.launchCount] == 1)
    #expect(shared[.fruits] == "apple")
    #expect(scene[.menu] == "Ramen")
    try scene.discard()
    #expect(preferences[.sortOption] == .date)
  }

  @Test func readmeDocumentExampleCompilesUnqualified() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("kura-apple-names-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    let store = try DocumentStore<[CashEntry]>(
      .url(folder.appendingPathComponent("cashData.json")))
    try store.append(CashEntry(memo: "高速代金", cash: 2800, time: "22:38"))
    #expect(store.value.map(\.cash).reduce(0, +) == 2800)
  }
}

struct CashEntry: Codable, Identifiable, Sendable {
  var id = UUID()
  var memo: String
  var cash: Int
  var time: String
}
