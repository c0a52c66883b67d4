import Foundation
import KuraCLI
import WarikanTUI

// With no command: on a terminal, the full-screen app (Add, List and Calc tabs); otherwise help.
if CommandLine.arguments.count <= 1 {
  if WarikanApp.isInteractive { exit(WarikanApp.main()) }
  print(CommandLineTool.help(for: warikanCommand, path: ["warikan"]))
  exit(0)
}
CommandLineTool.main(warikanCommand)
