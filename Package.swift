// swift-tools-version: 6.2
// 6.2: the library uses `SendableMetatype`, which the Swift 6.2 compiler introduced.
import PackageDescription

let package = Package(
  name: "Kura",
  // Synchronization's `Mutex` and `Atomic` (used for every shared state) need these versions;
  // they are also where SwiftData's history and `#Index` begin. `scripts/check-availability`
  // fails the build when the library uses an API newer than what is declared here.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    // Every embedded layer under one import; or only the layers an app uses.
    .library(name: "Kura", targets: ["Kura"]),
    .library(name: "KuraPreferences", targets: ["KuraPreferences", "KuraScenes"]),
    .library(name: "KuraDocuments", targets: ["KuraDocuments"]),
    .library(name: "KuraSQLite", targets: ["KuraSQLite"]),
    .library(name: "KuraStore", targets: ["KuraStore"]),
    .library(name: "KuraPostgreSQL", targets: ["KuraPostgreSQL"]),
    .library(name: "KuraSync", targets: ["KuraSync"]),
    .executable(name: "kura", targets: ["kura"]),
    .executable(name: "kura-bench", targets: ["kura-bench"]),
    .executable(name: "customers", targets: ["customers"]),
    .executable(name: "warikan", targets: ["warikan"]),
    .executable(name: "students", targets: ["students"]),
    .executable(name: "wishlist", targets: ["wishlist"]),
  ],
  targets: [
    // Debian's libsqlite3-dev on Linux; Apple platforms import the SDK's SQLite3 instead.
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    // Debian's libpq-dev: the PostgreSQL client library, for the PostgreSQL engine (Linux only;
    // on Apple platforms the engine is compiled out).
    .systemLibrary(
      name: "CLibPQ",
      pkgConfig: "libpq",
      providers: [.apt(["libpq-dev"])]
    ),
    // Debian's libmicrohttpd-dev: the HTTP/1.1 server under `kura sync serve` (Linux only).
    .systemLibrary(
      name: "CMicroHTTPD",
      pkgConfig: "libmicrohttpd",
      providers: [.apt(["libmicrohttpd-dev"])]
    ),
    // Atomic operations on shared memory (cross-process change counters).
    .target(name: "CKuraSupport"),
    // The layers, lowest first (ARCHITECTURE.md): each target may import only those before it.
    // Values, errors, locations, file watching and the library's process-wide switches.
    .target(name: "KuraBase", dependencies: ["CKuraSupport"]),
    // The SQLite driver: connections, statements, pools (the only code calling SQLite's C API).
    .target(
      name: "KuraSQLite",
      dependencies: [
        "KuraBase", "CKuraSupport", .target(name: "CSQLite", condition: .when(platforms: [.linux])),
      ]
    ),
    // `@AppStorage`-style preferences and App Group suites.
    .target(name: "KuraPreferences", dependencies: ["KuraBase", "KuraSQLite"]),
    // `@SceneStorage`-style scene state, kept in preference suites.
    .target(name: "KuraScenes", dependencies: ["KuraBase", "KuraPreferences"]),
    // Codable JSON documents with a journal.
    .target(name: "KuraDocuments", dependencies: ["KuraBase"]),
    // The model store: schema, container, context, queries, migration, observation, the engine
    // seam and the SQLite engine.
    .target(name: "KuraStore", dependencies: ["KuraBase", "KuraSQLite"]),
    // The PostgreSQL driver (libpq) and the store's PostgreSQL engine.
    .target(
      name: "KuraPostgreSQL",
      dependencies: [
        "KuraBase", "KuraStore", .target(name: "CLibPQ", condition: .when(platforms: [.linux])),
      ]
    ),
    // What the sync client and server share: the wire format, stamps, the merge core.
    .target(name: "KuraSyncCore", dependencies: ["KuraBase", "KuraStore"]),
    // The sync client: a replica's local store and its engine (URLSession).
    .target(
      name: "KuraSync", dependencies: ["KuraBase", "KuraSQLite", "KuraStore", "KuraSyncCore"]),
    // The sync server: its logic on PostgreSQL and its HTTP transport (libmicrohttpd).
    .target(
      name: "KuraSyncServer",
      dependencies: [
        "KuraBase", "KuraStore", "KuraPostgreSQL", "KuraSyncCore",
        .target(name: "CMicroHTTPD", condition: .when(platforms: [.linux])),
      ]
    ),
    // Every embedded layer under one import (`import Kura`).
    .target(
      name: "Kura",
      dependencies: [
        "KuraBase", "KuraSQLite", "KuraPreferences", "KuraScenes", "KuraDocuments", "KuraStore",
      ]
    ),
    // A throwaway PostgreSQL server (initdb, a Unix socket, cleanup at exit) for the tests and
    // `kura-bench postgres` (internal: not a product).
    .target(name: "KuraPostgresCluster", dependencies: ["Kura", "KuraPostgreSQL"]),
    // Argument parsing and output shared by every executable (internal: not a product).
    .target(name: "KuraCLI", dependencies: ["Kura", "TerminalUI"]),
    // The `--store` option of the tools that open a model store on SQLite or PostgreSQL.
    .target(name: "KuraStoreCLI", dependencies: ["Kura", "KuraCLI", "KuraPostgreSQL"]),
    // Kura Studio: `kura studio`'s web page on a store, served through KuraSyncServer's HTTP
    // transport (internal: not a product).
    .target(
      name: "KuraStudio",
      dependencies: ["Kura", "KuraPostgreSQL", "KuraSyncCore", "KuraSyncServer"]),
    .testTarget(
      name: "KuraStudioTests",
      dependencies: [
        "Kura", "KuraStudio", "KuraPostgreSQL", "KuraPostgresCluster", "KuraTestSupport",
        "KuraEngineTestSupport", "KuraSync", "KuraSyncServer",
      ]),
    .executableTarget(
      name: "kura",
      dependencies: [
        "Kura", "KuraCLI", "KuraStoreCLI", "KuraPostgreSQL", "KuraSync", "KuraSyncCore",
        "KuraSyncServer", "KuraPostgresCluster", "KuraStudio",
      ]),
    // The warikan bill-splitting app's logic, shared by its command-line and terminal front ends.
    .target(name: "WarikanKit", dependencies: ["Kura"]),
    .executableTarget(
      name: "warikan", dependencies: ["Kura", "KuraCLI", "WarikanKit", "WarikanTUI"]),
    // Terminal rendering and input for the full-screen apps: raw mode, ANSI, display width.
    .target(name: "CTerminalSupport"),
    .target(name: "TerminalUI", dependencies: ["CTerminalSupport"]),
    // The warikan full-screen app: screen model (testable without a terminal) and its runner.
    .target(name: "WarikanTUI", dependencies: ["Kura", "TerminalUI", "WarikanKit"]),
    // Callgrind's client requests for kura-bench's `--profile` region (scripts/check-speed).
    .target(name: "CBenchSupport"),
    .executableTarget(
      name: "kura-bench",
      dependencies: [
        "Kura", "CKuraSupport", "CBenchSupport", "WarikanKit", "TerminalUI", "WarikanTUI",
        "KuraPostgresCluster", "KuraSyncServer", "KuraPostgreSQL", "KuraSync", "KuraSyncCore",
        "KuraStudio",
        .target(name: "CSQLite", condition: .when(platforms: [.linux])),
        .target(name: "CLibPQ", condition: .when(platforms: [.linux])),
      ]
    ),
    // Seed §1's customer list (and its three fields) on Kura preferences.
    .executableTarget(name: "customers", dependencies: ["Kura", "KuraCLI"]),
    // The seed's Core Data "students" app on the model store.
    .executableTarget(name: "students", dependencies: ["Kura", "KuraCLI", "KuraStoreCLI"]),
    // Seed §3's travel wish list: relationships, live queries, search, remembered sort order.
    .executableTarget(
      name: "wishlist",
      dependencies: ["Kura", "KuraCLI", "KuraStoreCLI", "KuraSync", "KuraSyncCore"]),
    // One small program per product, whose linked libraries scripts/check-linking reads.
    .executableTarget(
      name: "link-preferences", dependencies: ["KuraPreferences"],
      path: "Sources/LinkSamples/link-preferences"),
    .executableTarget(
      name: "link-documents", dependencies: ["KuraDocuments"],
      path: "Sources/LinkSamples/link-documents"),
    .executableTarget(
      name: "link-store", dependencies: ["KuraStore"], path: "Sources/LinkSamples/link-store"),
    .executableTarget(
      name: "link-postgresql", dependencies: ["KuraStore", "KuraPostgreSQL"],
      path: "Sources/LinkSamples/link-postgresql"),
    .executableTarget(
      name: "link-sync", dependencies: ["KuraStore", "KuraSync"],
      path: "Sources/LinkSamples/link-sync"),
    .executableTarget(
      name: "link-syncserver", dependencies: ["KuraSyncServer"],
      path: "Sources/LinkSamples/link-syncserver"),
    // Child process used by the crash and sharing tests.
    .executableTarget(
      name: "kura-testhelper",
      dependencies: [
        "Kura", "KuraPostgreSQL", "KuraSync", "KuraSyncCore", "WarikanKit", "TerminalUI",
      ]),
    // Test helpers (not products): temporary folders, child processes, storage conditions.
    .target(name: "KuraTestSupport", dependencies: ["Kura"], path: "Tests/KuraTestSupport"),
    // Test helpers for the stores on every engine: throwaway PostgreSQL clusters, fault proxies.
    .target(
      name: "KuraEngineTestSupport",
      dependencies: [
        "Kura", "KuraPostgreSQL", "KuraPostgresCluster", "KuraTestSupport", "KuraSyncCore",
      ],
      path: "Tests/KuraEngineTestSupport"),
    // One test target per layer: a change to preferences builds and runs their tests alone.
    .testTarget(name: "KuraSQLiteTests", dependencies: ["Kura", "KuraTestSupport"]),
    .testTarget(name: "KuraPreferencesTests", dependencies: ["Kura", "KuraTestSupport"]),
    .testTarget(
      name: "KuraDocumentsTests", dependencies: ["Kura", "KuraTestSupport", "WarikanKit"]),
    .testTarget(
      name: "KuraStoreTests",
      dependencies: [
        "Kura", "KuraPostgreSQL", "KuraTestSupport", "KuraEngineTestSupport", "KuraCLI",
        "KuraStoreCLI",
      ]),
    .testTarget(
      name: "KuraSyncTests",
      dependencies: [
        "Kura", "KuraPostgreSQL", "KuraSync", "KuraSyncCore", "KuraSyncServer", "KuraTestSupport",
        "KuraEngineTestSupport", "KuraCLI", "KuraStoreCLI",
      ],
      // Store files an earlier version wrote, which tests open by path (see SyncUpgradeTests).
      exclude: ["Fixtures"]),
    // End to end: the apps and the `kura` tool as a person runs them.
    .testTarget(
      name: "KuraTests",
      dependencies: [
        "Kura", "KuraPostgreSQL", "KuraSync", "KuraSyncCore", "KuraCLI", "KuraStoreCLI",
        "WarikanKit", "TerminalUI", "WarikanTUI", "KuraPostgresCluster", "KuraTestSupport",
        "KuraEngineTestSupport",
      ]),
    // Test-only (not products): stand-ins with SwiftUI's and SwiftData's public names, and tests
    // that compile the README's examples next to them, as an app's files import them. On a Mac
    // the tests import the real frameworks instead.
    .target(name: "SwiftUIStandIn", path: "Tests/StandIns/SwiftUIStandIn"),
    .target(name: "SwiftDataStandIn", path: "Tests/StandIns/SwiftDataStandIn"),
    .testTarget(
      name: "AppleNamesTests",
      dependencies: [
        "Kura",
        .target(name: "SwiftUIStandIn", condition: .when(platforms: [.linux])),
        .target(name: "SwiftDataStandIn", condition: .when(platforms: [.linux])),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
