import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraSync
import KuraSyncCore
import KuraTestSupport
import Testing

@testable import Kura

@Suite("students app")
struct StudentsAppTests {
  @Test(arguments: TestEngine.enabled)
  func addListCountAndDeleteLastRoundTripThroughTheStore(_ engine: TestEngine) throws {
    let store = try studentsStore(engine)
    let students = try executable("students")
    let environment = store.environment
    let added = try run(students, ["add"], environment: environment)
    #expect(added.status == 0)
    #expect(added.stderr == "")
    let first = String(added.stdout.dropFirst("Added ".count).dropLast(".\n".count))
    let parts = first.split(separator: " ").map(String.init)
    #expect(parts.count == 2)
    #expect(["Ginny", "Harry", "Hermione", "Luna", "Ron"].contains(parts.first ?? ""))
    #expect(["Granger", "Lovegood", "Potter", "Weasley"].contains(parts.last ?? ""))
    #expect(
      try run(students, ["add", "--name", "Luna Lovegood"], environment: environment).stdout
        == "Added Luna Lovegood.\n")
    #expect(try run(students, ["count"], environment: environment).stdout == "2\n")
    #expect(
      try run(students, ["list"], environment: environment).stdout == "\(first)\nLuna Lovegood\n")
    let json = try run(students, ["list", "--json"], environment: environment)
    struct Row: Decodable {
      var id: UUID
      var student: String
    }
    let rows = try JSONDecoder().decode([Row].self, from: Data(json.stdout.utf8))
    #expect(rows.map(\.student) == [first, "Luna Lovegood"])
    #expect(
      try run(students, ["delete-last"], environment: environment).stdout
        == "Deleted Luna Lovegood.\n")
    #expect(try run(students, ["list"], environment: environment).stdout == "\(first)\n")
    #expect(try store.inspector().info().models.map(\.rows) == [1])
  }

  @Test func theStoreIsTheSeedAppsFileInItsDocumentsFolder() throws {
    let folder = TemporaryDirectory()
    let students = try executable("students")
    #expect(try run(students, ["add"], environment: folder.environment).status == 0)
    let store = folder.url.appendingPathComponent(
      "kura-home/apps/students/Documents/SQlite3/SwiftUICDSave2.sqlite")
    #expect(FileManager.default.fileExists(atPath: store.path))
    #expect(
      try run(students, ["path"], environment: folder.environment).stdout == store.path + "\n")
  }

  @Test(arguments: TestEngine.enabled)
  func deleteLastOnAnEmptyListIsAnError(_ engine: TestEngine) throws {
    let store = try studentsStore(engine)
    let result = try run(
      try executable("students"), ["delete-last"], environment: store.environment)
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "students: error: There is no student to delete: the list is empty. Add one with "
        + "`students add`.\n")
  }

  @Test func emptyNameIsAUsageError() throws {
    let folder = TemporaryDirectory()
    let result = try run(
      try executable("students"), ["add", "--name", " "], environment: folder.environment)
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "students: error: ` ` is not a valid value for --name: give a name with at least one "
        + "letter.\nSee `students add --help`.\n")
  }

  @Test func aFolderThatCanNotBeCreatedIsReportedInOneSentence() throws {
    let folder = TemporaryDirectory()
    let blocker = folder.file("blocker")
    try Data("x".utf8).write(to: blocker)
    var environment = folder.environment
    environment["KURA_HOME"] = blocker.path
    let result = try run(try executable("students"), ["add"], environment: environment)
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "students: error: Can't open the store: can't create `\(blocker.path)`: a file of that"
        + " name is in the way. Move that file away. Choose another location.\n")
  }

  @Test func storeThatIsNotSQLiteIsReportedNotOverwritten() throws {
    let folder = TemporaryDirectory()
    let store = folder.url.appendingPathComponent(
      "kura-home/apps/students/Documents/SQlite3/SwiftUICDSave2.sqlite")
    try FileManager.default.createDirectory(
      at: store.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("not a database".utf8).write(to: store)
    let result = try run(try executable("students"), ["add"], environment: folder.environment)
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "students: error: Can't open store `SwiftUICDSave2.sqlite`: the file is not an SQLite "
        + "database. It was left untouched; choose another file or move this one away.\n")
    #expect(try Data(contentsOf: store) == Data("not a database".utf8))
  }

  @Test(arguments: TestEngine.enabled)
  func processesAddingAtOnceLoseNothing(_ engine: TestEngine) throws {
    let store = try studentsStore(engine)
    let students = try executable("students")
    let processes = try (0..<6).map { number -> Process in
      let process = Process()
      process.executableURL = students
      process.arguments = ["add", "--name", "Student \(number)"]
      process.environment = store.environment
      process.standardOutput = FileHandle.nullDevice
      try launch(process)
      return process
    }
    for process in processes {
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
    }
    #expect(try run(students, ["count"], environment: store.environment).stdout == "6\n")
    let names = try run(students, ["list"], environment: store.environment).stdout
      .split(separator: "\n").map(String.init).sorted()
    #expect(names == (0..<6).map { "Student \($0)" })
  }
}
