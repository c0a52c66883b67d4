import Foundation

/// Looks at a store file before anything may write to it, on a connection that leaves the file,
/// its `-wal` and its `-shm` exactly as found (``Connection/OpenMode/inspect``): refuses a file
/// that is damaged, another program's database or made by a newer Kura or app version, refuses
/// a migration that would lose data, and tells whether opening needs to write at all.
struct StoreProbe {
  /// What opening the store takes.
  enum Outcome: Equatable {
    /// No store yet: it is created.
    case new
    /// The store matches the models: opening writes nothing.
    case current
    /// The store needs its metadata, tables or indexes changed (in one write transaction).
    case needsChanges
  }

  let url: URL
  let schemas: [ModelSchema]
  let graph: RelationshipGraph
  let migration: MigrationOptions?

  private var file: String { "`\(url.lastPathComponent)`" }

  /// The highest schema version this code knows: its migration plan's latest version, or the
  /// version stores without a plan record.
  static func knownSchemaVersion(_ migration: MigrationOptions?) -> Int {
    migration?.plan?.schemas.map { $0.versionIdentifier }.max() ?? StoreSetup.schemaVersion
  }

  func examine() throws -> Outcome {
    switch try StoreFile.state(of: url) {
    case .missing, .empty: return .new
    case .present: break
    }
    // Without a `-wal` file the file is read as immutable (no lock, nothing created beside it),
    // so a writer changing it meanwhile (another process creating the store) means reading
    // again; with one, another process may be setting up or removing the `-wal` and `-shm`
    // files, which a reader that leaves them as found can't wait for: that is read again too.
    for attempt in 0..<8 {
      let before = StoreFile.Stamp(url)
      do {
        let outcome = try examineOnce(mode: .inspect)
        if before.hasLog || StoreFile.Stamp(url) == before { return outcome }
      } catch let error as StoreError where Self.isTransient(error) {
        // Read again below.
      } catch {
        if StoreFile.Stamp(url) == before { throw error }
      }
      usleep(UInt32(500 * (attempt + 1)))
    }
    // Still changing: an ordinary read-only connection waits for the other processes' locks (it
    // may update the shared-memory index, never the database or its `-wal`).
    return try examineOnce(mode: .readOnly)
  }

  /// Whether a failed look may succeed a moment later: the `-wal`/`-shm` files were being set up
  /// or removed by another process.
  private static func isTransient(_ error: StoreError) -> Bool {
    guard let code = error.underlying?.code else { return false }
    return [.readOnly, .cannotOpen, .busy, .locked].contains(code)
  }

  private func examineOnce(mode: Connection.OpenMode) throws -> Outcome {
    if try StoreFile.state(of: url) != .present { return .new }
    let db: Connection
    do {
      db = try Connection(path: url.path, mode: mode)
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "open")
    }
    do {
      return try examine(db)
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "open")
    }
  }

  /// Refuses a file that is damaged, not a Kura store or written by a newer Kura, reading it
  /// with a connection that leaves it as found (for `kura store migrate`).
  static func checkWritable(_ url: URL) throws {
    guard try StoreFile.state(of: url) == .present else { return }
    let probe = StoreProbe(url: url, schemas: [], graph: RelationshipGraph(), migration: nil)
    do {
      let db = try Connection(path: url.path, mode: .inspect)
      _ = try probe.metadata(db, schemaVersionLimit: nil)
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.wrapping(error, url: url, doing: "open")
    }
  }

  /// The store's tables and its recorded format and schema version, or `nil` for an empty
  /// database; refuses another program's database and a newer store.
  private func metadata(_ db: Connection, schemaVersionLimit: Int?) throws
    -> (tables: Set<String>, format: Int?, version: Int?)?
  {
    let objects = try db.query(
      "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
    ) { (type: $0.string(at: 0), name: $0.string(at: 1)) }
    let tables = Set(objects.filter { $0.type == "table" }.map(\.name))
    guard tables.contains("kura_metadata") && tables.contains("kura_models") else {
      if objects.isEmpty { return nil }
      let names = objects.filter { $0.type == "table" }.prefix(3).map { "`\($0.name)`" }
      throw StoreError(
        .notAStore, url: url,
        message:
          "Can't open store \(file): it is an SQLite database made by another program (it has "
          + "\(names.isEmpty ? "no Kura tables" : "tables " + names.joined(separator: ", ")) "
          + "but no Kura metadata). It was left untouched; choose another file or move this one "
          + "away.")
    }
    let metadata = Dictionary(
      try db.query("SELECT key, value FROM kura_metadata") { ($0.string(at: 0), $0.string(at: 1)) },
      uniquingKeysWith: { first, _ in first })
    let format = try number(metadata, "storeFormat")
    let version = try number(metadata, "schemaVersion")
    if let format, format > StoreSetup.storeFormat {
      throw newer(
        "its format is \(format), and this version of Kura reads formats up to "
          + "\(StoreSetup.storeFormat)")
    }
    if let known = schemaVersionLimit, let version, version > known {
      throw newer(
        "its models are at schema version \(version), and this app knows versions up to \(known)")
    }
    return (tables, format, version)
  }

  private func examine(_ db: Connection) throws -> Outcome {
    let known = Self.knownSchemaVersion(migration)
    guard let (tables, format, version) = try metadata(db, schemaVersionLimit: known) else {
      return .new
    }
    var outcome = Outcome.current
    if format != StoreSetup.storeFormat || version == nil { outcome = .needsChanges }
    // A plan whose stages still have to run changes the tables in the write transaction.
    if migration?.plan != nil, let version, version < known { return .needsChanges }
    if !tables.contains("kura_history") { outcome = .needsChanges }
    for schema in schemas {
      guard tables.contains(schema.tableName) else {
        outcome = .needsChanges
        continue
      }
      let attributes = graph.attributesByTable[schema.tableName] ?? ModelAttributes()
      let plan = try TableMigration(
        schema: schema, attributes: attributes, fileName: file, url: url
      ).plan(db)
      guard case .unchanged = plan else {
        outcome = .needsChanges
        continue
      }
      if try !StoreSetup(url: url).isRecorded(schema, in: db)
        || !StoreSetup.indexesAreCurrent(schema, graph: graph, in: db)
      {
        outcome = .needsChanges
      }
    }
    return outcome
  }

  private func number(_ metadata: [String: String], _ key: String) throws -> Int? {
    guard let text = metadata[key] else { return nil }
    guard let value = Int(text) else {
      throw StoreError(
        .damaged, url: url,
        message:
          "Can't open store \(file): its `\(key)` (table `kura_metadata`) is `\(text)`, not a "
          + "number. The file was left untouched; restore it from a backup, or check it with "
          + "`kura store check`.")
    }
    return value
  }

  private func newer(_ why: String) -> StoreError {
    StoreError(
      .newerStore, url: url,
      message:
        "Can't open store \(file): it was written by a newer version: \(why). It was left "
        + "untouched; open it with the newer version of the app.")
  }
}

/// What is at a store's path before it is opened.
enum StoreFile {
  /// What tells that a file changed: its identity, size and modification time, and whether a
  /// `-wal` file is beside it.
  struct Stamp: Equatable {
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var size: Int64 = -1
    var seconds = 0
    var nanoseconds = 0
    var hasLog = false

    init(_ url: URL) {
      var info = stat()
      if stat(url.path, &info) == 0 {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
          let time = info.st_mtimespec
        #else
          let time = info.st_mtim
        #endif
        seconds = Int(time.tv_sec)
        nanoseconds = Int(time.tv_nsec)
      }
      hasLog = access(url.path + "-wal", F_OK) == 0
    }
  }

  enum State {
    /// Nothing: a new store may be created.
    case missing
    /// A zero-length file and no `-wal` file: SQLite reads it as an empty database.
    case empty
    /// A file with content (or a `-wal` file beside it).
    case present
  }

  static func state(of url: URL) throws -> State {
    let path = url.path
    var info = stat()
    guard lstat(path, &info) == 0 else { return .missing }
    let file = "`\(url.lastPathComponent)`"
    if info.st_mode & S_IFMT == S_IFLNK {
      let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
      guard stat(path, &info) == 0 else {
        throw StoreError(
          .cannotOpen, url: url,
          message:
            "Can't open store \(file): it is a symbolic link to `\(target)`, which does not "
            + "exist. Nothing was created; fix the link or remove it.")
      }
    }
    if info.st_mode & S_IFMT == S_IFDIR {
      throw StoreError(
        .cannotOpen, url: url,
        message:
          "Can't open store \(file): it is a folder, not a file. Choose another path or move "
          + "the folder away.")
    }
    var log = stat()
    let hasLog = stat(path + "-wal", &log) == 0 && log.st_size > 0
    return info.st_size == 0 && !hasLog ? .empty : .present
  }
}
