import Foundation
import TerminalUI
import WarikanKit
import WarikanTUI

/// The terminal app's redraw: after one keystroke, drawing the new state and sending only the
/// changed cells (what `warikan` does) against redrawing the whole screen (the baseline).
func runTerminalBenchmarks() throws {
  let size = TerminalSize(columns: 120, rows: 40)
  let entries = (1...200).map { CashData(memo: "交通費 \($0)", cash: $0 * 100, time: "22:38") }
  let keys: [Key] =
    Array("12,800").map { Key.character($0) } + [.tab] + "高速代金".map { .character($0) }
  let keystrokes = 1000

  func typeAll(minimal: Bool) -> Int {
    var state = WarikanState(entries: entries)
    var renderer = ANSIRenderer()
    var bytes = renderer.render(WarikanView.render(state, size: size)).utf8.count
    for index in 0..<keystrokes {
      let key = keys[index % keys.count]
      state.handle(.key(key))
      if index % keys.count == keys.count - 1 {
        state.amountText = ""
        state.memoText = ""
        state.addFocus = .amount
      }
      if !minimal { renderer.invalidate() }
      bytes += renderer.render(WarikanView.render(state, size: size)).utf8.count
    }
    return bytes
  }

  var minimalBytes = 0
  var fullBytes = 0
  let (kura, baseline) = medians(
    kura: { minimalBytes = typeAll(minimal: true) },
    baseline: { fullBytes = typeAll(minimal: false) })
  report(
    "\(keystrokes) keystrokes, 120×40, draw + diff", kura: kura, baseline: baseline,
    baselineName: "full redraw", target: 1.0)
  print(
    "  bytes sent to the terminal: \(minimalBytes / keystrokes) per keystroke"
      + " (full redraw: \(fullBytes / keystrokes))")
  print(
    "  per keystroke: \(milliseconds(kura / keystrokes)) (full redraw \(milliseconds(baseline / keystrokes)))"
  )
}
