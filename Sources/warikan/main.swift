import Foundation
import KuraCLI

// With no command, warikan prints its help (the interactive terminal app will open here).
if CommandLine.arguments.count <= 1 {
  print(CommandLineTool.help(for: warikanCommand, path: ["warikan"]))
  exit(0)
}
CommandLineTool.main(warikanCommand)
