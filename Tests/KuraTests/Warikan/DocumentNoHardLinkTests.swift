import Foundation
import KuraTestSupport
import Testing

/// A shared library that makes every `link` and `linkat` fail with the errno named by
/// `KURA_TEST_LINK_ERRNO`, loaded into a child with `LD_PRELOAD`: the C library call itself
/// fails, as it does on a file system without hard links (FAT, exFAT, SMB).
private let noLinkSource = """
  #include <errno.h>
  #include <stdlib.h>
  static int fail(void) {
    const char *code = getenv("KURA_TEST_LINK_ERRNO");
    errno = code ? atoi(code) : EPERM;
    return -1;
  }
  int link(const char *from, const char *to) { (void)from; (void)to; return fail(); }
  int linkat(int a, const char *from, int b, const char *to, int flags) {
    (void)a; (void)from; (void)b; (void)to; (void)flags; return fail();
  }
  """

@Suite("Documents on file systems without hard links")
struct DocumentNoHardLinkTests {
  @Test(arguments: [EPERM, EXDEV, EOPNOTSUPP])
  func recoverMovesADamagedFileAsideWithoutHardLinks(_ code: Int32) throws {
    let folder = TemporaryDirectory()
    let library = try preloadLibrary(noLinkSource, named: "libnolink", in: folder)
    try placeSeedFile(folder, "[{\"id\":")
    var environment = folder.environment
    environment["LD_PRELOAD"] = library.path
    environment["KURA_TEST_LINK_ERRNO"] = "\(code)"
    // Two damaged files in a row: the second finds the first one's name taken.
    for round in 1...2 {
      if round == 2 { try placeSeedFile(folder, "[{\"id\":") }
      let recovered = try run(try executable("warikan"), ["recover"], environment: environment)
      #expect(recovered.status == 0, "\(recovered.stderr)")
      #expect(recovered.stdout.contains("The file was moved to"))
    }
    let documents = cashDataURL(folder).deletingLastPathComponent()
    let moved = try fileNames(in: documents).filter { $0.hasPrefix("cashData.json.damaged-") }
    #expect(moved.count == 2)
    for name in moved {
      #expect(
        try Data(contentsOf: documents.appendingPathComponent(name)) == Data("[{\"id\":".utf8))
    }
    #expect(!FileManager.default.fileExists(atPath: cashDataURL(folder).path))
  }
}
