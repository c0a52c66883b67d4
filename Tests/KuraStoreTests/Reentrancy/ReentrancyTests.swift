import Foundation
import KuraCLI
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStoreCLI
import KuraTestSupport
import Testing

/// Runs a `kura-testhelper` command in a child process with a bound, so a deadlock or a trap
/// fails the test instead of hanging or crashing the run.
func runBounded(_ arguments: [String], folder: TemporaryDirectory) throws -> ProcessResult {
  try run(
    try executable("kura-testhelper"), arguments, environment: folder.environment,
    timeout: .seconds(20))
}

@Suite("Re-entrant calls")
struct ReentrancyTests {
  @Test func readingADocumentInsideItsOwnUpdateSeesTheStartingValue() throws {
    let folder = TemporaryDirectory()
    let result = try runBounded(
      ["reentrant-document", folder.file("counter.json").path], folder: folder)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(
      result.stdout
        == "read 1\nread again 1\nnested change: Can't change document"
        + " `\(folder.file("counter.json").path)`: it was called from inside a change of the same"
        + " document, which is still in progress. Nothing was changed; change the value given to"
        + " `update` instead.\nafter 5\nstream 5\n")
  }

  @Test(arguments: ["update", "batch"])
  func writingToASuiteInsideItsOwnUpdateOrBatchIsRefused(_ kind: String) throws {
    let folder = TemporaryDirectory()
    let result = try runBounded(
      ["reentrant-preferences", folder.file("suite.sqlite").path, kind], folder: folder)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let refusal =
      "Can't write to suite `suite` from inside its own `update` or `batch`: that write is still"
      + " in progress. Nothing was changed; make the change through the batch given to `batch`,"
      + " or return it from `update`."
    #expect(
      result.stdout
        == "read 1\nnested set: \(refusal)\nsubscript: \(refusal)\nafter 2\n")
  }

  @Test func aQueryRunAgainFromItsOwnRowClosureFinishes() throws {
    let folder = TemporaryDirectory()
    let result = try runBounded(["reentrant-query"], folder: folder)
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(result.stdout == "1:1,2,3 2:1,2,3 3:1,2,3\n")
  }
}
