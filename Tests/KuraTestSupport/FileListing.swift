import Foundation

/// Every file and folder under `root` with its bytes (a folder as `nil`, a symbolic link as its
/// target's path): two listings are equal only when nothing was created, removed or changed.
package func fileTree(_ root: URL) throws -> [String: Data?] {
  var tree: [String: Data?] = [:]
  let files = FileManager.default
  func walk(_ url: URL, _ relative: String) throws {
    for name in try files.contentsOfDirectory(atPath: url.path).sorted() {
      let child = url.appendingPathComponent(name)
      let path = relative.isEmpty ? name : relative + "/" + name
      let attributes = try files.attributesOfItem(atPath: child.path)
      switch attributes[.type] as? FileAttributeType {
      case .typeSymbolicLink?:
        tree[path] = Data(try files.destinationOfSymbolicLink(atPath: child.path).utf8)
      case .typeDirectory?:
        tree[path] = .some(nil)
        try walk(child, path)
      default:
        tree[path] = try Data(contentsOf: child)
      }
    }
  }
  try walk(root, "")
  return tree
}

/// The names in a folder, sorted.
package func fileNames(in folder: URL) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
}
