import Foundation
import Kura
import TerminalUI
import WarikanKit

/// Runs the warikan screen on the terminal: reads keys, feeds them to ``WarikanState``, runs the
/// effects against the entry book and the session's scene state, and redraws what changed.
///
/// Changes made by other processes (`warikan add` in another terminal) arrive through the book's
/// change stream, which wakes the input loop through the terminal's self-pipe.
///
/// For example:
///
/// ```swift
/// let book = try EntryBook()
/// let scene = try WarikanSceneState(sceneID: "main", locations: Locations.app("warikan"))
/// try WarikanApp(book: book, scene: scene).run()
/// ```
package final class WarikanApp {
  private let book: EntryBook
  private let scene: WarikanSceneState

  /// Creates the app.
  ///
  /// - Parameters:
  ///   - book: The entry book.
  ///   - scene: The session's scene state.
  package init(book: EntryBook, scene: WarikanSceneState) {
    self.book = book
    self.scene = scene
  }

  /// Whether standard input and output are a terminal the app can take over.
  package static var isInteractive: Bool { Terminal.isInteractive }

  /// Opens the full-screen app and returns when the user quits.
  ///
  /// - Throws: ``TerminalError`` when there is no usable terminal.
  package func run() throws {
    var state = WarikanState(draft: scene.load() ?? WarikanDraft(), entries: book.entries)
    if let problem = ShortTime.timeZoneProblem() {
      // Said where the user looks, until the first key.
      state.message = WarikanState.Message(text: problem, isError: true)
    }
    let terminal = try Terminal()
    let wakeUp = terminal.wakeUpSignal
    let changes = book.changes()
    let watcher = Task.detached {
      for await _ in changes { wakeUp.wake() }
    }
    defer { watcher.cancel() }
    try terminal.enter()
    defer { terminal.leave() }

    var renderer = ANSIRenderer()
    var size = terminal.currentSize()
    terminal.write(renderer.render(WarikanView.render(state, size: size)))
    while !state.isQuitting {
      for event in try terminal.nextEvents() {
        switch event {
        case .key(.control("l")):
          renderer.invalidate()
        case .key(let key):
          perform(state.handle(.key(key)), on: &state)
        case .resize(let newSize):
          size = newSize
          renderer.invalidate()
        case .wake:
          reload(&state)
        }
        if state.isQuitting { break }
      }
      terminal.write(renderer.render(WarikanView.render(state, size: size)))
    }
  }

  private func perform(_ effects: [WarikanEffect], on state: inout WarikanState) {
    for effect in effects {
      do {
        switch effect {
        case .add(let cash, let memo):
          try book.add(cash: cash, memo: memo)
          reload(&state)
        case .delete(let id):
          try book.delete(id: id)
          reload(&state)
        case .reset:
          try book.reset()
          reload(&state)
        case .saveDraft(let draft):
          try scene.save(draft)
        case .quit:
          try scene.discard()
        }
      } catch {
        perform(state.handle(.failed("\(error)")), on: &state)
      }
    }
  }

  private func reload(_ state: inout WarikanState) {
    let rows = book.entries
    if rows != state.entries { perform(state.handle(.entriesChanged(rows)), on: &state) }
    if let error = book.store.reloadError {
      perform(state.handle(.failed("\(error)")), on: &state)
    }
  }
}
