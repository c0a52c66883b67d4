import Foundation
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

@testable import Kura

/// The tools' read-only commands, each run between two listings of the whole file tree
/// (KURA_HOME, HOME and any store named): a read of something that doesn't exist says so and
/// creates nothing, and a read of something that exists changes no byte.
@Suite("Reads never write: the tools")
struct ReadsNeverWriteToolTests {
  let folder = TemporaryDirectory()

  /// Runs a tool and requires that the file tree is the same afterwards.
  @discardableResult
  func unchanged(
    _ tool: String, _ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> ProcessResult {
    let before = try fileTree(folder.url)
    let result = try run(try executable(tool), arguments, environment: folder.environment)
    let after = try fileTree(folder.url)
    let added = Set(after.keys).subtracting(before.keys).sorted()
    let changed = before.keys.filter { after[$0] != before[$0] }.sorted()
    #expect(
      added.isEmpty && changed.isEmpty,
      "\(tool) \(arguments) added \(added), changed or removed \(changed)",
      sourceLocation: sourceLocation)
    return result
  }

  func ok(_ tool: String, _ arguments: String...) throws -> String {
    let result = try run(try executable(tool), arguments, environment: folder.environment)
    try #require(result.status == 0, "\(tool) \(arguments): \(result.stderr)")
    return result.stdout
  }

  @Test func customersReadsOnAFreshInstallCreateNothing() throws {
    #expect(try unchanged("customers", "list").stdout.hasPrefix("No customers yet."))
    let fields = try unchanged("customers", "fields", "--scene", "X")
    #expect(fields.status == 0)
    #expect(
      fields.stdout
        == "menu =     (scene X)\nfruits =     (group.iOS17.M_Kaku)\nbasket =     (customers)\n")
    #expect(try unchanged("customers", "fields", "scenes").stdout == "")
    let dictionary = try unchanged("customers", "dictionary")
    #expect(dictionary.stdout.hasPrefix("The dictionary is empty."))
  }

  @Test func customersReadsOfExistingSuitesChangeNoByte() throws {
    _ = try ok("customers", "add", "12", "Taro")
    _ = try ok("customers", "fields", "set", "menu", "Ramen", "--scene", "lunch")
    _ = try ok("customers", "fields", "set", "fruits", "apple")
    _ = try ok("customers", "dictionary", "add", "first")
    #expect(try unchanged("customers", "list").stdout == "1  No.12: Taro\n")
    #expect(
      try unchanged("customers", "fields", "--scene", "lunch").stdout.hasPrefix("menu = Ramen"))
    #expect(try unchanged("customers", "fields", "scenes").stdout == "lunch\n")
    #expect(try unchanged("customers", "dictionary").stdout.hasSuffix(" = FirstView\n"))
    #expect(try unchanged("kura", "defaults", "read").status == 0)
    #expect(try unchanged("kura", "defaults", "read", "customers").status == 0)
    #expect(try unchanged("kura", "defaults", "domains").status == 0)
  }

  @Test func aDictionaryGroupMustBeAnAppGroupThatExists() throws {
    let bogus = try unchanged("customers", "dictionary", "--group", "bogus")
    #expect(bogus.status == 64)
    #expect(
      bogus.stderr
        == "customers: error: `bogus` is not a valid value for --group: an App Group identifier "
        + "starts with `group.`, such as `group.iOS17.M_Kaku`.\n"
        + "See `customers dictionary --help`.\n")
    let missing = try unchanged("customers", "dictionary", "--group", "group.bogus")
    #expect(missing.status == 1)
    #expect(
      missing.stderr.hasPrefix("customers: error: Can't find suite `group.bogus`: no file at"))
    #expect(
      try run(
        try executable("customers"), ["dictionary", "add", "first", "--group", "bogus"],
        environment: folder.environment
      ).status == 64)
    #expect(try ok("kura", "defaults", "domains") == "")
  }

  @Test func aZeroLengthSuiteFileStaysZeroLength() throws {
    let preferences = folder.url.appendingPathComponent("kura-home/apps/customers/Preferences")
    try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
    let file = preferences.appendingPathComponent("customers.sqlite")
    try Data().write(to: file)
    #expect(try unchanged("kura", "defaults", "read", "customers").stdout == "")
    #expect(try unchanged("customers", "list").stdout.hasPrefix("No customers yet."))
    #expect(try unchanged("customers", "fields").status == 0)
    #expect(try Data(contentsOf: file).isEmpty)
  }

  @Test func aReadThroughADanglingLinkCreatesNoTarget() throws {
    let preferences = folder.url.appendingPathComponent("kura-home/apps/customers/Preferences")
    try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
    let target = folder.url.appendingPathComponent("elsewhere/customers.sqlite")
    try FileManager.default.createSymbolicLink(
      atPath: preferences.appendingPathComponent("customers.sqlite").path,
      withDestinationPath: target.path)
    #expect(try unchanged("customers", "list").stdout.hasPrefix("No customers yet."))
    let read = try unchanged("kura", "defaults", "read", "customers")
    #expect(read.status == 1)
    #expect(read.stderr.hasPrefix("kura: error: Can't find suite `customers`: no file at"))
    #expect(!FileManager.default.fileExists(atPath: target.deletingLastPathComponent().path))
  }

  @Test func wishlistReadsOfAMistypedStoreCreateNothing() throws {
    let typo = folder.file("typo.sqlite").path
    #expect(
      try unchanged("wishlist", "recent", "--store", typo).stdout
        == "No trips yet. Add one with `wishlist trip add <name>`.\n")
    #expect(
      try unchanged("wishlist", "search", "kyoto", "--store", typo).stdout
        == "Nothing matches `kyoto`.\n")
    let activities = try unchanged("wishlist", "activity", "list", "Kyoto", "--store", typo)
    #expect(activities.status == 1)
    #expect(
      activities.stderr
        == "wishlist: error: There is no trip `Kyoto`. See the trips with `wishlist trip list`.\n")
    #expect(try unchanged("wishlist", "trip", "list", "--store", typo).status == 0)
    #expect(try unchanged("wishlist", "path", "--store", typo).stdout == typo + "\n")
  }

  @Test func anotherAppsStoreIsNeitherReadNorWrittenAsOurs() throws {
    let students = folder.file("students.sqlite").path
    _ = try ok("students", "add", "--name", "Luna", "--store", students)
    for arguments in [
      ["trip", "list"], ["recent"], ["trip", "add", "Kyoto"], ["search", "kyoto"],
    ] {
      let result = try run(
        try executable("wishlist"), arguments + ["--store", students],
        environment: folder.environment)
      #expect(result.status == 1, "\(arguments)")
      #expect(
        result.stderr
          == "wishlist: error: Can't open store `students.sqlite`: it holds other models "
          + "(`Student`) and none of these (`Trip`, `Activity`), so it is most likely another "
          + "app's store. Nothing was changed; choose this app's store, or set "
          + "`allowsUnrelatedModels` on the configuration to add these models to it.\n",
        "\(arguments)")
    }
    let before = try fileTree(folder.url)
    _ = try unchanged("wishlist", "trip", "list", "--store", students)
    #expect(try fileTree(folder.url) == before)
    #expect(try ok("students", "list", "--store", students) == "Luna\n")
  }

  @Test func aStoreInAFolderThatDoesNotExistIsAnErrorAndNoFolderIsMade() throws {
    let path = folder.file("nonexistent/dir/x.sqlite").path
    let added = try unchanged("students", "add", "--store", path)
    #expect(added.status == 64)
    #expect(
      added.stderr
        == "students: error: `\(path)` is not a valid value for --store: the folder "
        + "`\(folder.file("nonexistent/dir").path)` doesn't exist; create the folder first, or "
        + "give a path in an existing one.\nSee `students add --help`.\n")
    let trip = try unchanged("wishlist", "trip", "add", "Kyoto", "--store", path)
    #expect(trip.status == 64)
    #expect(!FileManager.default.fileExists(atPath: folder.file("nonexistent").path))
  }
}
