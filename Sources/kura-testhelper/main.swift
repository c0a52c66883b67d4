import Foundation

// A child process for the crash and sharing tests: `kura-testhelper <command> <arguments…>`.
// Each area adds its commands in a file of its own and lists them here.

/// One command of the helper.
struct HelperCommand: Sendable {
  let name: String
  let run: @Sendable ([String]) throws -> Void
}

let commands: [HelperCommand] =
  sqliteHelperCommands + preferencesHelperCommands + documentHelperCommands
  + relationHelperCommands + storeTrustHelperCommands + signalHelperCommands
  + terminalHelperCommands + suspensionHelperCommands
  + reentrancyHelperCommands + standardPreferencesHelperCommands + atomicWriteHelperCommands
  + watcherHelperCommands + syncHelperCommands

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let command = commands.first(where: { $0.name == name }) else {
  FileHandle.standardError.write(
    Data("usage: kura-testhelper <\(commands.map(\.name).joined(separator: "|"))> …\n".utf8))
  exit(64)
}
do {
  try command.run(Array(arguments.dropFirst()))
} catch {
  FileHandle.standardError.write(Data("kura-testhelper: \(error)\n".utf8))
  exit(1)
}
