import KuraCLI

let kura = Command(
  name: "kura",
  abstract: "Inspects and edits Kura's preferences, documents and model stores.",
  subcommands: [
    pathsCommand, versionCommand, defaultsCommand, storeCommand, syncCommand, studioCommand,
  ])

CommandLineTool.main(kura)
