import TerminalUI

/// Runs the warikan screen on the terminal: reads keys, feeds them to ``WarikanState``, runs the
/// effects against the entry book and the scene state, and redraws what changed.
///
/// Changes made by other processes wake the input loop through the terminal's self-pipe, so an
/// entry added with `warikan add` in another terminal shows up at once.
///
/// For example:
///
/// ```swift
/// let app = WarikanApp(entries: try EntryBookSource.open(), drafts: try SceneDraftStore())
/// try app.run()
/// ```
package final class WarikanApp {
  private let source: any WarikanEntrySource
  private let drafts: any WarikanDraftStore

  /// Creates the app.
  ///
  /// - Parameters:
  ///   - entries: The entry book.
  ///   - drafts: The session's scene state.
  package init(entries: any WarikanEntrySource, drafts: any WarikanDraftStore) {
    self.source = entries
    self.drafts = drafts
  }

  /// Opens the full-screen app and returns when the user quits.
  ///
  /// - Throws: ``TerminalError`` when there is no usable terminal, or the book's error when the
  ///   entries cannot be read at start (before the screen is taken over).
  package func run() throws {
    var state = WarikanState(draft: drafts.load() ?? WarikanDraft(), entries: try source.entries())
    let terminal = try Terminal()
    let wakeUp = terminal.wakeUpSignal
    let observation = try source.observe { wakeUp.wake() }
    defer { observation.cancel() }
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
          try source.add(cash: cash, memo: memo)
          reload(&state)
        case .delete(let id):
          try source.delete(id: id)
          reload(&state)
        case .reset:
          try source.reset()
          reload(&state)
        case .saveDraft(let draft):
          try drafts.save(draft)
        case .quit:
          try drafts.discard()
        }
      } catch {
        perform(state.handle(.failed("\(error)")), on: &state)
      }
    }
  }

  private func reload(_ state: inout WarikanState) {
    do {
      let rows = try source.entries()
      if rows != state.entries { perform(state.handle(.entriesChanged(rows)), on: &state) }
    } catch {
      perform(state.handle(.failed("\(error)")), on: &state)
    }
  }
}
