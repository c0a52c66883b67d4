// `import Kura` brings every embedded layer: the SQLite driver, preferences, scene state,
// documents and the model store. PostgreSQL (`KuraPostgreSQL`), the sync client (`KuraSync`) and
// the sync server (`KuraSyncServer`) are imported by name where an app uses them.
@_exported import KuraBase
@_exported import KuraDocuments
@_exported import KuraPreferences
@_exported import KuraSQLite
@_exported import KuraScenes
@_exported import KuraStore
