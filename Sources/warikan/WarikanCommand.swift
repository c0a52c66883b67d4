import Foundation
import Kura
import KuraCLI
import WarikanKit

/// `warikan`: the bill-splitting app. With no command it prints its help (the terminal app will
/// open there).
let warikanCommand = Command(
  name: "warikan",
  abstract: "Splits a bill: records what was spent and shares the total exactly.",
  discussion: """
    Entries live in cashData.json in warikan's Documents folder (KURA_HOME=<dir> moves it), in \
    the same JSON format as the original app.
    """,
  subcommands: [])
