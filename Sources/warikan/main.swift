import KuraCLI

CommandLineTool.main(warikanCommand)
