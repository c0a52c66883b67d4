import Foundation
import Kura
import WarikanKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension WarikanApp {
  /// Opens warikan's entry book and the terminal session's scene state, runs the app, closes the
  /// book; prints `warikan: error: …` on failure.
  ///
  /// For example (what `warikan` with no arguments does on a terminal):
  ///
  /// ```swift
  /// exit(WarikanApp.main())
  /// ```
  ///
  /// - Parameter environment: The process environment (for the scene id and `KURA_HOME`).
  /// - Returns: The exit status: 0 after a normal quit, 1 after an error.
  package static func main(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> Int32 {
    do {
      let book = try EntryBook()
      let locations = try Locations.app(EntryBook.appIdentifier, environment: environment)
      let sceneID = WarikanSceneID.current(environment: environment)
      var holdsNothing = false
      do {
        let scene = try WarikanSceneState(sceneID: sceneID, locations: locations)
        try WarikanApp(book: book, scene: scene).run()
        holdsNothing = scene.load() == nil
      }
      // A quit discarded the draft: remove the scene's file too (it would hold only removal
      // markers), now that this process has closed it.
      if holdsNothing { try SceneState.discard(sceneID: sceneID, locations: locations) }
      try book.close()
      return 0
    } catch let error as DocumentError where error.code == .damaged {
      report(
        "\(error)\nTo move the damaged file aside and start an empty bill, run `warikan recover`.")
    } catch {
      report("\(error)")
    }
    return 1
  }

  private static func report(_ message: String) {
    FileHandle.standardError.write(Data("warikan: error: \(message)\n".utf8))
  }
}
