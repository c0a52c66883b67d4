import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The real location of a file, with every symbolic link followed (also when the file itself does
/// not exist yet, or is a link to a file that does not exist yet), so that lock, journal and
/// change-signal files sit beside the real file whichever path a process opened it by.
package enum ResolvedPath {
  /// The real path of `path`; `path` itself (made absolute) when nothing can be resolved.
  package static func resolve(_ path: String) -> String {
    var current = absolute(path)
    // Each round follows one link of the last component; the kernel's own limit is 40.
    for _ in 0..<40 {
      if let real = realPath(current) { return real }
      let folder = (current as NSString).deletingLastPathComponent
      let name = (current as NSString).lastPathComponent
      let realFolder = realPath(folder) ?? folder
      let candidate = (realFolder as NSString).appendingPathComponent(name)
      guard let target = linkTarget(candidate) else { return candidate }
      current =
        target.hasPrefix("/") ? target : (realFolder as NSString).appendingPathComponent(target)
    }
    return current
  }

  private static func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    return (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The target of a symbolic link, or `nil` when `path` is not one.
  private static func linkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
