// Stand-ins for SwiftData's public names, so a Linux test can compile code that imports
// "SwiftData" and Kura together and see every clash a real SwiftData file would
// (Tests/AppleNamesTests). Kura keeps several of these names on purpose (its model store reads
// like SwiftData); a file importing both writes Kura's as `Kura.ModelContainer` and so on.
// Only the names matter here.

// Classes SwiftData declares.
public final class ModelContainer {}
public final class ModelContext {}
public final class Schema {}
public final class DefaultStore {}

// Types SwiftData declares.
public struct FetchDescriptor<T> {}
public struct ModelConfiguration {}
public struct PersistentIdentifier {}
public struct DefaultHistoryToken {}
public struct HistoryDescriptor<T> {}
public struct DefaultHistoryTransaction {}
public struct DefaultHistoryInsert<T> {}
public struct DefaultHistoryUpdate<T> {}
public struct DefaultHistoryDelete<T> {}
public struct FetchResultsCollection<T> {}
public struct SwiftDataError: Error {}
public struct DataStoreConfiguration {}
public struct DataStoreSaveChangesRequest {}
public struct DataStoreFetchRequest {}
public struct DefaultSerialModelExecutor {}
public struct ModelIterator {}
public struct Query<Element, Result> {}
public struct Model {}
public struct Attribute {}
public struct Relationship {}
public struct Transient {}
public struct Unique {}
public struct Index {}
public struct ModelActorMacro {}
public enum MigrationStage {}

// Protocols SwiftData declares.
public protocol PersistentModel {}
public protocol SchemaMigrationPlan {}
public protocol VersionedSchema {}
public protocol HistoryToken {}
public protocol HistoryTransaction {}
public protocol HistoryChange {}
public protocol HistoryInsert {}
public protocol HistoryUpdate {}
public protocol HistoryDelete {}
public protocol ModelActor {}
public protocol ModelExecutor {}
public protocol SerialModelExecutor {}
public protocol DataStore {}
public protocol DataStoreBatching {}
public protocol HistoryProviding {}
public protocol DataStoreSnapshot {}
public protocol BackingData {}
public protocol RelationshipCollection {}
