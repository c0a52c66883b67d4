import KuraCLI

// The seed's customer list (Essentials chapter 28, "Custom list" tab), on Kura preferences.
let customers = Command(
  name: "customers",
  abstract: "Keeps a customer list in the app's preferences (and the seed's three fields).",
  subcommands: [addCommand, listCommand, deleteCommand, fieldsCommand, dictionaryCommand])

CommandLineTool.main(customers)
