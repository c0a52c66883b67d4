import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Synchronization
import Testing

@testable import Kura

private struct Memo: PersistentModel, Equatable {
  var id = UUID()
  var text: String
  static var schemaName: String { "Student" }
}

/// The bytes of a store's main file, `-wal` and `-shm` (`nil` for a missing one).
private func snapshot(_ url: URL) -> [Data?] {
  ["", "-wal", "-shm"].map { try? Data(contentsOf: URL(fileURLWithPath: url.path + $0)) }
}

/// The files beside a store, by name.
private func folderListing(_ url: URL) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
}

/// Makes the state a crash leaves at `url`: a main file with older rows and a `-wal` (and `-shm`)
/// holding the newest committed row, copied while the writer was still open.
private func makeCrashedStore(at url: URL, scratch: URL) throws {
  let source = scratch.appendingPathComponent("live.store")
  do {
    let context = ModelContext(try ModelContainer(for: Memo.self, configurations: .url(source)))
    for number in 0..<200 { try context.insert(Memo(text: "memo \(number)")) }
    try context.save()
  }
  let container = try ModelContainer(for: Memo.self, configurations: .url(source))
  let context = ModelContext(container)
  try context.insert(Memo(text: "newest"))
  try context.save()
  try FileManager.default.createDirectory(
    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  for suffix in ["", "-wal", "-shm"] {
    try FileManager.default.copyItem(atPath: source.path + suffix, toPath: url.path + suffix)
  }
  withExtendedLifetime(container) {}
}

@Suite("Store trust")
struct StoreTrustTests {
  @Test func damagedMainFileWithAWALIsRefusedLeavingAllThreeFilesAsFound() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("crashed/notes.store")
    try makeCrashedStore(at: url, scratch: folder.url)
    var bytes = try Data(contentsOf: url)
    for index in 100..<4096 { bytes[index] = 0x5A }
    try bytes.write(to: url)
    let before = snapshot(url)
    #expect(before.allSatisfy { $0 != nil })
    #expect {
      _ = try ModelContainer(for: Memo.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .damaged && error.url == url
    }
    #expect(snapshot(url) == before)
    // The inspection commands refuse it too, changing nothing.
    let kura = try executable("kura")
    let schemaFile = folder.file("models.json")
    try Data("[]".utf8).write(to: schemaFile)
    for arguments in [["info"], ["check"], ["dump"], ["schema"], ["migrate"]] {
      var command = ["store"] + arguments + [url.path]
      if arguments == ["dump"] { command.append("Student") }
      if arguments == ["migrate"] { command += ["--schema", schemaFile.path] }
      let result = try run(kura, command, environment: folder.environment)
      #expect(result.status == 1, "\(command)")
      #expect(snapshot(url) == before, "\(command)")
    }
    // So does the students app, whose store is this file.
    let students = folder.url.appendingPathComponent(
      "kura-home/apps/students/Documents/SQlite3/SwiftUICDSave2.sqlite")
    try FileManager.default.createDirectory(
      at: students.deletingLastPathComponent(), withIntermediateDirectories: true)
    for suffix in ["", "-wal", "-shm"] {
      try FileManager.default.copyItem(atPath: url.path + suffix, toPath: students.path + suffix)
    }
    for command in [["list"], ["count"], ["add", "--name", "Ron Weasley"]] {
      let result = try run(try executable("students"), command, environment: folder.environment)
      #expect(result.status == 1, "\(command)")
      #expect(result.stderr.contains("damaged"), "\(command): \(result.stderr)")
      #expect(snapshot(students) == before, "\(command)")
    }
  }

  @Test func healthyCrashedStoreIsReadWithoutChangingAnyFile() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("crashed/notes.store")
    try makeCrashedStore(at: url, scratch: folder.url)
    let before = snapshot(url)
    let kura = try executable("kura")
    for command in [["info"], ["check"], ["dump"]] {
      var arguments = ["store"] + command + [url.path]
      if command == ["dump"] { arguments.append("Student") }
      let result = try run(kura, arguments, environment: folder.environment)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(snapshot(url) == before, "\(arguments)")
    }
    let dump = try run(
      kura, ["store", "dump", url.path, "Student"], environment: folder.environment)
    #expect(dump.stdout.contains("newest"))
  }

  @Test func inspectingACopyLeavesNoFilesBehind() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("copy/notes.store")
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      let context = ModelContext(try ModelContainer(for: Memo.self, configurations: .url(url)))
      try context.insert(Memo(text: "one"))
      try context.save()
    }
    try? FileManager.default.removeItem(atPath: url.path + "-changes")
    let listing = try folderListing(url)
    #expect(listing == ["notes.store"])
    let before = snapshot(url)
    let kura = try executable("kura")
    for command in [["info"], ["check"], ["schema"]] {
      let result = try run(kura, ["store"] + command + [url.path], environment: folder.environment)
      #expect(result.status == 0)
      #expect(try folderListing(url) == listing, "\(command)")
      #expect(snapshot(url) == before)
    }
  }

  @Test func anotherProgramsDatabaseIsRefusedWithoutChangingAByte() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("notes.sqlite")
    do {
      let connection = try Connection(path: url.path)
      try connection.execute("PRAGMA journal_mode = DELETE")
      try connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
      try connection.execute("INSERT INTO notes (body) VALUES ('mine')")
    }
    try? FileManager.default.removeItem(atPath: url.path + "-changes")
    let before = snapshot(url)
    #expect(before[1] == nil && before[2] == nil)
    #expect(before[0]?[18] == 1)  // rollback journal, not WAL
    #expect {
      _ = try ModelContainer(for: Memo.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .notAStore
        && error.message
          == "Can't open store `notes.sqlite`: it is an SQLite database made by another program "
          + "(it has tables `notes` but no Kura metadata). It was left untouched; choose another "
          + "file or move this one away."
    }
    #expect(snapshot(url) == before)
    #expect(try folderListing(url) == ["notes.sqlite"])
    let check = try run(
      try executable("kura"), ["store", "check", url.path], environment: folder.environment)
    #expect(check.status == 1)
    #expect(check.stdout.contains("not a Kura store"))
    // The apps refuse it too.
    let students = try copyAsStudentsStore(url, in: folder)
    let list = try run(try executable("students"), ["list"], environment: folder.environment)
    #expect(list.status == 1)
    #expect(list.stderr.contains("made by another program"))
    #expect(snapshot(students) == before)
    let wishlist = folder.url.appendingPathComponent("kura-home/apps/wishlist/Data/default.store")
    try FileManager.default.createDirectory(
      at: wishlist.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: url, to: wishlist)
    let trips = try run(
      try executable("wishlist"), ["trip", "list"], environment: folder.environment)
    #expect(trips.status == 1, "\(trips.stdout) \(trips.stderr)")
    #expect(snapshot(wishlist) == before)
  }

  @Test(arguments: ["storeFormat", "schemaVersion"])
  func newerFormatOrVersionIsRefusedWithoutChangingAByte(key: String) throws {
    let folder = TemporaryDirectory()
    let url = folder.file("newer.store")
    do {
      let context = ModelContext(try ModelContainer(for: Memo.self, configurations: .url(url)))
      try context.insert(Memo(text: "kept"))
      try context.save()
      try context.container.pool.write { db in
        try db.run("UPDATE kura_metadata SET value = '999' WHERE key = ?", [.text(key)])
        // A column a newer version added.
        try db.execute("ALTER TABLE Student ADD COLUMN mood TEXT")
        try db.execute("UPDATE Student SET mood = 'happy'")
      }
    }
    let before = snapshot(url)
    #expect {
      _ = try ModelContainer(for: Memo.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .newerStore && error.message.contains("999")
        && error.message.contains("newer version")
    }
    #expect(snapshot(url) == before)
    let students = try copyAsStudentsStore(url, in: folder)
    let list = try run(try executable("students"), ["list"], environment: folder.environment)
    #expect(list.status == 1)
    #expect(list.stderr.contains("newer version"))
    #expect(snapshot(students) == before)
  }

  @Test func openingACurrentStoreWritesNothing() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("current.store")
    do {
      let context = ModelContext(try ModelContainer(for: Memo.self, configurations: .url(url)))
      try context.insert(Memo(text: "kept"))
      try context.save()
    }
    let before = snapshot(url)
    let models = try Connection(path: url.path, mode: .inspect).query(
      "SELECT model, columns FROM kura_models"
    ) { "\($0.string(at: 0)) \($0.string(at: 1))" }
    for _ in 0..<3 {
      let container = try ModelContainer(for: Memo.self, configurations: .url(url))
      let total = try container.pool.writeSerialized { $0.totalChanges }
      #expect(total == 0)
      #expect(try ModelContext(container).fetch(FetchDescriptor<Memo>()).map(\.text) == ["kept"])
    }
    #expect(snapshot(url)[0] == before[0])
    let after = try Connection(path: url.path, mode: .inspect).query(
      "SELECT model, columns FROM kura_models"
    ) { "\($0.string(at: 0)) \($0.string(at: 1))" }
    #expect(after == models)
  }

  @Test func readOnlyCommandsNeverCreateOrInitialiseAStore() throws {
    let folder = TemporaryDirectory()
    let students = try executable("students")
    let store = folder.url.appendingPathComponent(
      "kura-home/apps/students/Documents/SQlite3/SwiftUICDSave2.sqlite")
    let list = try run(students, ["list"], environment: folder.environment)
    #expect(list.status == 0)
    #expect(list.stdout == "No students yet. Add one with `students add`.\n")
    #expect(try run(students, ["count"], environment: folder.environment).stdout == "0\n")
    #expect(!FileManager.default.fileExists(atPath: store.path))
    let trips = try run(
      try executable("wishlist"), ["trip", "list"], environment: folder.environment)
    #expect(trips.status == 0)
    let wishlist = folder.url.appendingPathComponent("kura-home/apps/wishlist/Data/default.store")
    #expect(!FileManager.default.fileExists(atPath: wishlist.path))
    // A zero-length file is not initialised by a reader, and the reason is given.
    try FileManager.default.createDirectory(
      at: store.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data().write(to: store)
    let empty = try run(students, ["list"], environment: folder.environment)
    #expect(empty.status == 1)
    #expect(empty.stderr.contains("the file is empty (0 bytes), so it holds no store yet"))
    #expect(try Data(contentsOf: store).isEmpty)
    #expect(try folderListing(store) == ["SwiftUICDSave2.sqlite"])
    // A writer treats it as a new store.
    #expect(try run(students, ["add"], environment: folder.environment).status == 0)
    #expect(try run(students, ["count"], environment: folder.environment).stdout == "1\n")
  }

  @Test func danglingSymlinkIsRefusedNotCreated() throws {
    let folder = TemporaryDirectory()
    let url = folder.file("link.store")
    let target = folder.file("missing/target.store")
    try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target.path)
    #expect {
      _ = try ModelContainer(for: Memo.self, configurations: .url(url))
    } throws: { error in
      let error = try #require(error as? StoreError)
      return error.code == .cannotOpen && error.message.contains("symbolic link")
    }
    #expect(!FileManager.default.fileExists(atPath: target.path))
  }

  @Test func readOnlyFileAndFolderAreReadWithoutWriting() throws {
    let folder = TemporaryDirectory()
    let students = try executable("students")
    #expect(
      try run(students, ["add", "--name", "Ron Weasley"], environment: folder.environment).status
        == 0)
    let store = folder.url.appendingPathComponent(
      "kura-home/apps/students/Documents/SQlite3/SwiftUICDSave2.sqlite")
    // Everything readable by all, writable by none (and the children run as `nobody` when the
    // tests run as root, who could write anyway).
    let files = FileManager.default
    let items = try #require(files.enumerator(atPath: folder.url.path)).compactMap { $0 as? String }
    for item in items.map({ folder.url.appendingPathComponent($0).path }) + [folder.url.path] {
      var isFolder: ObjCBool = false
      _ = files.fileExists(atPath: item, isDirectory: &isFolder)
      chmod(item, isFolder.boolValue ? 0o555 : 0o444)
    }
    defer {
      for item in items.map({ folder.url.appendingPathComponent($0).path }) + [folder.url.path] {
        chmod(item, 0o755)
      }
    }
    let before = snapshot(store)
    let listing = try folderListing(store)
    func runReadOnly(_ tool: URL, _ arguments: [String]) throws -> ProcessResult {
      if getuid() == 0 {
        return try run(
          URL(fileURLWithPath: "/usr/bin/setpriv"),
          ["--reuid=65534", "--regid=65534", "--clear-groups", tool.path] + arguments,
          environment: folder.environment)
      }
      return try run(tool, arguments, environment: folder.environment)
    }
    let list = try runReadOnly(students, ["list"])
    #expect(list.status == 0, "\(list.stderr)")
    #expect(list.stdout == "Ron Weasley\n")
    let kura = try executable("kura")
    let info = try runReadOnly(kura, ["store", "info", store.path])
    #expect(info.status == 0, "\(info.stderr)")
    let dump = try runReadOnly(kura, ["store", "dump", store.path, "Student"])
    #expect(dump.status == 0, "\(dump.stderr)")
    #expect(dump.stdout.contains("Ron Weasley"))
    #expect(snapshot(store) == before)
    #expect(try folderListing(store) == listing)
    // A command that writes says why it can't.
    let add = try runReadOnly(students, ["add", "--name", "Luna Lovegood"])
    #expect(add.status == 1)
    #expect(
      add.stderr
        == "students: error: Can't open store `SwiftUICDSave2.sqlite` for writing: the file is "
        + "read-only. Nothing was changed; make it writable, or open the store with `allowsSave` "
        + "off to read it.\n")
    #expect(snapshot(store) == before)
  }

  @Test(arguments: TestEngine.enabled)
  func readersAndWritersInOtherProcessesOpenTheStoreAtOnce(_ engine: TestEngine) throws {
    let store = try studentsStore(engine)
    let students = try executable("students")
    #expect(
      try run(students, ["add", "--name", "First One"], environment: store.environment).status == 0
    )
    let results = Mutex<[ProcessResult]>([])
    DispatchQueue.concurrentPerform(iterations: 12) { index in
      let command = index.isMultiple(of: 2) ? ["add", "--name", "Student \(index)"] : ["list"]
      let result =
        (try? run(students, command, environment: store.environment))
        ?? ProcessResult(status: -1, stdout: "", stderr: "did not run")
      results.withLock { $0.append(result) }
    }
    for result in results.withLock({ $0 }) {
      #expect(result.status == 0, "\(result.stderr)")
    }
    #expect(try run(students, ["count"], environment: store.environment).stdout == "7\n")
  }
}

/// Copies a store file to where the `students` app keeps its store, in the folder's `KURA_HOME`.
private func copyAsStudentsStore(_ url: URL, in folder: TemporaryDirectory) throws -> URL {
  let students = folder.url.appendingPathComponent(
    "kura-home/apps/students/Documents/SQlite3/SwiftUICDSave2.sqlite")
  try FileManager.default.createDirectory(
    at: students.deletingLastPathComponent(), withIntermediateDirectories: true)
  try FileManager.default.copyItem(at: url, to: students)
  return students
}
