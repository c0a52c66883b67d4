import Foundation
import Testing

/// A C compiler from the toolchain or the system, when there is one.
package let cCompiler: String? = ["/opt/swift/usr/bin/clang", "/usr/bin/clang", "/usr/bin/cc"]
  .first { FileManager.default.isExecutableFile(atPath: $0) }

/// Compiles C `source` into a shared library in `folder`, for a child's `LD_PRELOAD`: the
/// functions it defines replace the C library's in that child. Fails the test, naming the
/// command that installs one, when there is no C compiler.
package func preloadLibrary(_ source: String, named name: String, in folder: TemporaryDirectory)
  throws
  -> URL
{
  let compiler = try #require(
    cCompiler,
    "no C compiler (clang or cc) to build \(name).so: run scripts/setup (apt-get install clang)")
  let library = folder.file("\(name).so")
  let file = folder.file("\(name).c")
  try Data(source.utf8).write(to: file)
  let compiled = try run(
    URL(fileURLWithPath: compiler), ["-shared", "-fPIC", "-o", library.path, file.path, "-ldl"],
    environment: ProcessInfo.processInfo.environment)
  try #require(compiled.status == 0, "\(compiled.stderr)")
  return library
}

/// A library for `LD_PRELOAD` that appends a line to the file named by `KURA_TEST_SYNC_LOG` for
/// each `fsync` and `fdatasync` call — `fdatasync file`, `fsync folder`, … — then makes the call.
package let syncCountingSource = """
  #define _GNU_SOURCE
  #include <dlfcn.h>
  #include <fcntl.h>
  #include <stdlib.h>
  #include <string.h>
  #include <sys/stat.h>
  #include <unistd.h>
  static void note(const char *call, int fd) {
    const char *path = getenv("KURA_TEST_SYNC_LOG");
    if (!path) return;
    struct stat status;
    const char *kind =
      fstat(fd, &status) == 0 && S_ISDIR(status.st_mode) ? " folder\\n" : " file\\n";
    int log = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (log < 0) return;
    if (write(log, call, strlen(call)) < 0 || write(log, kind, strlen(kind)) < 0) {}
    close(log);
  }
  int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    note("fdatasync", fd);
    return real(fd);
  }
  int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    note("fsync", fd);
    return real(fd);
  }
  """
