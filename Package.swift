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
    .library(name: "Kura", targets: ["Kura"]),
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
    .target(
      name: "Kura",
      dependencies: [
        .target(name: "CSQLite", condition: .when(platforms: [.linux])),
        .target(name: "CLibPQ", condition: .when(platforms: [.linux])),
        "CKuraSupport",
      ]
    ),
    // A throwaway PostgreSQL server (initdb, a Unix socket, cleanup at exit) for the tests and
    // `kura-bench postgres` (internal: not a product).
    .target(name: "KuraPostgresCluster", dependencies: ["Kura"]),
    // Argument parsing and output shared by every executable (internal: not a product).
    .target(name: "KuraCLI", dependencies: ["Kura", "TerminalUI"]),
    // The sync server's HTTP transport (internal: not a product).
    .target(
      name: "KuraSyncServer",
      dependencies: [
        "Kura", .target(name: "CMicroHTTPD", condition: .when(platforms: [.linux])),
      ]),
    // Kura Studio: `kura studio`'s web page on a store, served through KuraSyncServer's HTTP
    // transport (internal: not a product).
    .target(name: "KuraStudio", dependencies: ["Kura", "KuraSyncServer"]),
    .testTarget(
      name: "KuraStudioTests", dependencies: ["Kura", "KuraStudio", "KuraPostgresCluster"]),
    .executableTarget(
      name: "kura",
      dependencies: ["Kura", "KuraCLI", "KuraSyncServer", "KuraPostgresCluster", "KuraStudio"]),
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
        "KuraPostgresCluster", "KuraSyncServer", "KuraStudio",
        .target(name: "CSQLite", condition: .when(platforms: [.linux])),
        .target(name: "CLibPQ", condition: .when(platforms: [.linux])),
      ]
    ),
    // Seed §1's customer list (and its three fields) on Kura preferences.
    .executableTarget(name: "customers", dependencies: ["Kura", "KuraCLI"]),
    // The seed's Core Data "students" app on the model store.
    .executableTarget(name: "students", dependencies: ["Kura", "KuraCLI"]),
    // Seed §3's travel wish list: relationships, live queries, search, remembered sort order.
    .executableTarget(name: "wishlist", dependencies: ["Kura", "KuraCLI"]),
    // Child process used by the crash and sharing tests.
    .executableTarget(
      name: "kura-testhelper", dependencies: ["Kura", "WarikanKit", "TerminalUI"]),
    .testTarget(
      name: "KuraTests",
      dependencies: [
        "Kura", "KuraCLI", "WarikanKit", "TerminalUI", "WarikanTUI", "KuraPostgresCluster",
        "KuraSyncServer",
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
