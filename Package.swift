// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Kura",
  platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
  products: [
    .library(name: "Kura", targets: ["Kura"]),
    .executable(name: "kura", targets: ["kura"]),
    .executable(name: "kura-bench", targets: ["kura-bench"]),
    .executable(name: "students", targets: ["students"]),
  ],
  targets: [
    // Debian's libsqlite3-dev on Linux; Apple platforms import the SDK's SQLite3 instead.
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    // Atomic operations on shared memory (cross-process change counters).
    .target(name: "CKuraSupport"),
    .target(
      name: "Kura",
      dependencies: [
        .target(name: "CSQLite", condition: .when(platforms: [.linux])),
        "CKuraSupport",
      ]
    ),
    // Argument parsing and output shared by every executable (internal: not a product).
    .target(name: "KuraCLI", dependencies: ["Kura"]),
    .executableTarget(name: "kura", dependencies: ["Kura", "KuraCLI"]),
    .executableTarget(
      name: "kura-bench",
      dependencies: [
        "Kura", "CKuraSupport",
        .target(name: "CSQLite", condition: .when(platforms: [.linux])),
      ]
    ),
    // The seed's Core Data "students" app on the model store.
    .executableTarget(name: "students", dependencies: ["Kura", "KuraCLI"]),
    // Child process used by the crash and sharing tests.
    .executableTarget(name: "kura-testhelper", dependencies: ["Kura"]),
    .testTarget(name: "KuraTests", dependencies: ["Kura", "KuraCLI"]),
  ],
  swiftLanguageModes: [.v6]
)
