import Foundation
import TerminalUI

/// `terminal-crash <trap|abort|segv>`: takes over the terminal (raw mode, alternate screen),
/// draws `raw mode on`, waits for one key, then crashes the chosen way — a Swift runtime trap
/// (`fatalError`), `abort()`, or a write through a null pointer — so a test can check that the
/// crash handlers restored the terminal.
let terminalHelperCommands: [HelperCommand] = [
  HelperCommand(name: "terminal-crash") { arguments in
    guard let mode = arguments.first, ["trap", "abort", "segv"].contains(mode) else {
      throw CocoaError(.featureUnsupported)
    }
    let terminal = try Terminal()
    try terminal.enter()
    var screen = ScreenBuffer(width: 20, height: 1)
    screen.write("raw mode on", row: 0, column: 0)
    var renderer = ANSIRenderer()
    terminal.write(renderer.render(screen))
    _ = try terminal.nextEvents()
    switch mode {
    case "trap":
      fatalError("terminal-crash: crashing on purpose")
    case "abort":
      abort()
    default:
      let pointer = UnsafeMutablePointer<Int>(bitPattern: 8)
      pointer?.pointee = 1
    }
  }
]
