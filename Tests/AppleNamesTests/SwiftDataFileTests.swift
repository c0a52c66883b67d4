// A file of an app migrating from SwiftData: it imports SwiftUI, SwiftData and Kura, so the names
// both SwiftData and Kura declare (ModelContainer, ModelContext, FetchDescriptor, Schema,
// PersistentModel, ...) are written `Kura.X`, as the README's "Apple platforms" section says.
// On Linux the stand-ins carry SwiftUI's and SwiftData's names; on a Mac the real frameworks.
import Foundation
import Kura
import Testing

#if canImport(SwiftData)
  import SwiftData
  import SwiftUI
#else
  import SwiftDataStandIn
  import SwiftUIStandIn
#endif

struct Pupil: Kura.PersistentModel {
  var id = UUID()
  var student: String
  var added = Date()
  static var schema: Kura.Schema<Pupil> { Kura.Schema(.unique(\.student), .index(\.added)) }
}

struct Journey: Kura.PersistentModel {
  var id = UUID()
  var name: String
  var created = Date()
  static var schema: Kura.Schema<Journey> { Kura.Schema(.searchable(\.name)) }
}

struct Outing: Kura.PersistentModel {
  var id = UUID()
  var name: String
  var isComplete = false
  var trip: Journey.ID
  static var schema: Kura.Schema<Outing> {
    Kura.Schema(.reference(\.trip, to: Journey.self, deleteRule: .cascade))
  }
}

/// A view listing what a live query holds, beside SwiftUI's names.
struct JourneyList: View {
  let recent: LiveQuery<Journey>
  var body: some View { Text("\(recent.models.count) trips") }
}

@Suite("A file importing SwiftData and Kura")
struct SwiftDataFileTests {
  @Test @MainActor func readmeModelStoreCompilesQualified() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("kura-apple-names-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    // The README's "Model store", qualified.
    let container = try Kura.ModelContainer(
      for: Pupil.self, Journey.self, Outing.self,
      configurations: .url(folder.appendingPathComponent("store.sqlite")))
    let context = Kura.ModelContext(container)
    try context.insert(Pupil(student: "Luna Lovegood"))
    try context.insert(Pupil(student: "Ron Weasley"))
    try context.save()
    let recent = try context.fetch(
      Kura.FetchDescriptor<Pupil>(
        predicate: #Predicate { $0.student.starts(with: "L") },
        sortBy: [SortDescriptor(\.added, order: .reverse)], fetchLimit: 10))
    #expect(recent.map(\.student) == ["Luna Lovegood"])
    try context.delete(model: Pupil.self, where: #Predicate { $0.student == "Ron Weasley" })
    var names: [String] = []
    try context.enumerate(Kura.FetchDescriptor<Pupil>()) { names.append($0.student) }
    #expect(names == ["Luna Lovegood"])

    // "Relationships, migrations, live queries", qualified.
    let token = try container.currentHistoryToken()
    let kyoto = Journey(name: "Kyoto")
    try context.insert(kyoto)
    try context.insert(Outing(name: "Tea ceremony", trip: kyoto.id))
    try context.save()
    let outings = try context.related(Outing.self, of: kyoto, via: \.trip)
    let list = JourneyList(
      recent: try LiveQuery(
        Kura.FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.created, order: .reverse)]),
        in: container))
    let changes = try container.history(since: token)
    let found = try context.fetch(Kura.FetchDescriptor<Journey>(), matching: "kyoto")
    #expect(outings.map(\.name) == ["Tea ceremony"])
    #expect(list.recent.models.map(\.name) == ["Kyoto"])
    #expect(!changes.isEmpty)
    #expect(found.map(\.name) == ["Kyoto"])
  }
}
