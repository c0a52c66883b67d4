#if canImport(CLibPQ)
  import Foundation
  import Synchronization

  import Kura

  import KuraPostgreSQL

  /// A throwaway PostgreSQL cluster: `initdb` into a temporary folder, a server listening only
  /// on a Unix socket in that folder, run as the `postgres` user when the process runs as root.
  /// The tests share one (``shared()``, started on first use); `kura-bench postgres` starts its
  /// own with ``start(fsync:)``.
  ///
  /// It is stopped and its folder removed when the process exits — normally (an `atexit`
  /// handler), or killed (a watchdog process that reads a pipe only this process holds, and
  /// cleans up when the pipe closes).
  ///
  /// Tests get a database of their own with ``freshDatabaseURL(_:)``:
  ///
  /// ```swift
  /// let url = try PostgresCluster.freshDatabaseURL()
  /// let connection = try PostgresConnection(url)
  /// ```
  public final class PostgresCluster: Sendable {
    /// The folder holding the data directory, the socket and the server's log.
    ///
    /// For example: `print(try PostgresCluster.shared().folder)`.
    public let folder: String
    /// The port, which names the socket file (`.s.PGSQL.5432`); no TCP port is opened.
    ///
    /// For example: `let socket = "\(cluster.folder)/.s.PGSQL.\(cluster.port)"`.
    public let port = 5432
    /// The superuser's name.
    ///
    /// For example: `let url = cluster.url(database: "postgres", user: cluster.superuser)`.
    public let superuser = "postgres"
    /// A role that must log in with a password (scram-sha-256), for authentication tests.
    ///
    /// For example: `let url = cluster.url(database: "postgres", user: cluster.passwordRole)`.
    public let passwordRole = PostgresCluster.passwordRoleName
    private static let passwordRoleName = "kura_password_test"
    /// That role's password.
    ///
    /// For example:
    ///
    /// ```swift
    /// let url = cluster.url(
    ///   database: "postgres", user: cluster.passwordRole, password: cluster.passwordRolePassword)
    /// ```
    public let passwordRolePassword = "correct horse battery staple"
    /// Whether the server syncs its writes to disk (`fsync`); off for the tests, on for
    /// benchmarks, so that a commit costs what it costs in production.
    ///
    /// For example: `print(cluster.fsync ? "durable" : "fsync off")`.
    public let fsync: Bool
    private let administrator: Mutex<PostgresConnection>
    private let databaseCount = Atomic<Int>(0)
    /// `pg_ctl`, and the user the server runs as (`nil`: this process's).
    let pgCtl: String
    let owner: (uid: uid_t, gid: gid_t)?

    /// The cluster of the tests, started on first use (once per process, also when tests ask
    /// for it at the same time), with `fsync=off`.
    ///
    /// For example: `let cluster = try PostgresCluster.shared()`.
    ///
    /// - Returns: The cluster.
    /// - Throws: ``StartError`` when the server programs are missing or the server can't start.
    public static func shared() throws -> PostgresCluster { try startup.get() }

    private static let startup = Result<PostgresCluster, any Error> {
      try PostgresCluster.make(fsync: false)
    }

    /// Starts a cluster of its own (not the shared one), stopped and removed when the process
    /// exits, as the shared one is.
    ///
    /// For example: `let cluster = try PostgresCluster.start(fsync: true)`.
    ///
    /// - Parameter fsync: Whether the server syncs commits to disk (PostgreSQL's default);
    ///   `false` makes writes faster and a crash of the machine lose them.
    /// - Returns: The running cluster.
    /// - Throws: ``StartError`` when the server programs are missing or the server can't start.
    public static func start(fsync: Bool) throws -> PostgresCluster {
      try PostgresCluster.make(fsync: fsync)
    }

    /// A `postgresql://` URL of a new, empty database of its own on the shared cluster, as the
    /// superuser; usable in this process and, through the environment, by child processes.
    ///
    /// For example: `let connection = try PostgresConnection(PostgresCluster.freshDatabaseURL())`.
    ///
    /// - Parameter name: Words for the database's name (the calling function's by default).
    /// - Returns: The URL, as a string.
    /// - Throws: ``StartError`` or a `PostgresError` when the database can't be created.
    public static func freshDatabaseURL(_ name: String = #function) throws -> String {
      try shared().freshDatabaseURL(name)
    }

    /// A `postgresql://` URL of a new, empty database of its own, as the superuser.
    ///
    /// For example: `let url = try cluster.freshDatabaseURL("kura side")`.
    ///
    /// - Parameter name: Words for the database's name (the calling function's by default).
    /// - Returns: The URL, as a string.
    /// - Throws: A `PostgresError` when the database can't be created.
    public func freshDatabaseURL(_ name: String = #function) throws -> String {
      let number = databaseCount.add(1, ordering: .relaxed).newValue
      let label = name.lowercased().filter { ($0.isASCII && $0.isLetter) || $0.isNumber }
      let database = "kura_\(number)_\(label.prefix(40))"
      try runAsSuperuser("CREATE DATABASE \(database)")
      return url(database: database)
    }

    /// The URL of `database` on this cluster, as `user` (the superuser by default), with a
    /// password when one is given.
    ///
    /// For example: `let url = cluster.url(database: "postgres")`.
    ///
    /// - Parameters:
    ///   - database: The database's name.
    ///   - user: The role to log in as; the superuser when `nil`.
    ///   - password: The role's password, if it needs one.
    /// - Returns: The URL, as a string.
    public func url(database: String, user: String? = nil, password: String? = nil) -> String {
      let user = user ?? superuser
      var userInfo = user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? user
      if let password {
        userInfo +=
          ":" + (password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
      }
      let host = folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder
      return "postgresql://\(userInfo)@/\(database)?host=\(host)&port=\(port)"
    }

    /// Runs SQL as the superuser, connected to the `postgres` database (create or drop
    /// databases, terminate backends…).
    ///
    /// For example: `try cluster.runAsSuperuser("DROP DATABASE kura_1_old")`.
    ///
    /// - Parameter sql: The SQL (no parameters).
    /// - Throws: A `PostgresError` naming the SQL.
    public func runAsSuperuser(_ sql: String) throws {
      try administrator.withLock { try $0.execute(sql) }
    }

    /// Ends a server backend (and so breaks the connection it serves), waiting until it is gone.
    ///
    /// For example: `try cluster.terminateBackend(connection.processID)`.
    ///
    /// - Parameter processID: The backend's process id.
    /// - Throws: A `PostgresError` when the server can't be asked.
    public func terminateBackend(_ processID: Int32) throws {
      try administrator.withLock { connection in
        _ = try connection.queryFirst(
          "SELECT pg_terminate_backend(?, 10000)", [.integer(Int64(processID))]
        ) { $0.int64(at: 0) }
      }
    }

    // MARK: Starting and stopping

    /// Why the cluster can't start.
    ///
    /// For example:
    ///
    /// ```swift
    /// do { _ = try PostgresCluster.shared() } catch let error as PostgresCluster.StartError {
    ///   print(error)
    /// }
    /// ```
    public struct StartError: Error, CustomStringConvertible {
      /// What failed, and the command that installs what is missing.
      ///
      /// For example: `print(error.description)`.
      public var description: String
    }

    /// The command that installs the server programs.
    ///
    /// For example: `print("PostgreSQL is missing: \(PostgresCluster.installHint)")`.
    public static let installHint =
      "install PostgreSQL's server programs with `./scripts/setup` or"
      + " `apt-get install postgresql libpq-dev`"

    init(
      folder: String, fsync: Bool, pgCtl: String, owner: (uid: uid_t, gid: gid_t)?,
      administrator: PostgresConnection
    ) {
      self.folder = folder
      self.fsync = fsync
      self.pgCtl = pgCtl
      self.owner = owner
      self.administrator = Mutex(administrator)
    }

    private static func make(fsync: Bool) throws -> PostgresCluster {
      guard let initdb = Self.findProgram("initdb"),
        let pgCtl = Self.findProgram("pg_ctl", preferring: initdb.deletingLastPathComponent())
      else {
        throw StartError(
          description:
            "A throwaway PostgreSQL server needs `initdb` and `pg_ctl` (looked in PATH and"
            + " /usr/lib/postgresql/*/bin): \(Self.installHint)")
      }
      let owner = try Self.serverUser()
      let folder = try Self.makeFolder(owner: owner)
      let data = folder + "/data"
      let stop =
        Self.commandLine(as: owner, [pgCtl.path, "stop", "-D", data, "-m", "immediate", "-w"])
        + " >/dev/null 2>&1; rm -rf " + Self.shellQuoted(folder)
      try Self.startWatchdog(stopCommand: stop)
      Self.registerExitCleanup(stop)

      try Self.run(
        owner,
        [
          initdb.path, "-D", data, "-E", "UTF8", "--locale=C", "-A", "trust", "-U", "postgres",
          "--no-sync", "--no-instructions",
        ], log: folder + "/initdb.log")
      // The superuser logs in without a password; one role must give its password; a
      // standby (``startStandby(synchronous:)``) replicates without one.
      let rules = """
        local all \(passwordRoleName) scram-sha-256
        local all all trust
        local replication all trust

        """
      try rules.write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
      try startServer(folder: folder, fsync: fsync, pgCtl: pgCtl.path, owner: owner)
      let connection = try PostgresConnection(administratorURL(folder))
      let cluster = PostgresCluster(
        folder: folder, fsync: fsync, pgCtl: pgCtl.path, owner: owner, administrator: connection)
      let password = cluster.passwordRolePassword.replacingOccurrences(of: "'", with: "''")
      try connection.execute(
        "SET password_encryption = 'scram-sha-256';"
          + " CREATE ROLE \(cluster.passwordRole) LOGIN PASSWORD '\(password)'")
      return cluster
    }

    /// Starts the server of the data directory in `folder`, listening on a socket there only.
    static func startServer(
      folder: String, fsync: Bool, pgCtl: String, owner: (uid: uid_t, gid: gid_t)?
    ) throws {
      let options =
        "-c listen_addresses='' -c unix_socket_directories='\(folder)' -c port=5432"
        + (fsync ? "" : " -c fsync=off") + " -c max_connections=600"
      try run(
        owner,
        [
          pgCtl, "start", "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t",
          "120", "-o", options,
        ], log: folder + "/pg_ctl.log")
    }

    /// The superuser's URL of the `postgres` database of the server in `folder`.
    static func administratorURL(_ folder: String) -> String {
      "postgresql://postgres@/postgres?host="
        + (folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder)
        + "&port=5432"
    }

    // MARK: Replication

    /// Starts a streaming standby of this cluster: a base backup into a folder of its own, a
    /// server there replicating from this one (read-only until ``promote()``), removed when the
    /// process exits. With `synchronous`, this cluster waits for the standby to have flushed
    /// every commit before acknowledging it (`synchronous_standby_names = '*'`), so a commit
    /// acknowledged is never lost by a failover. Returns once the standby streams.
    ///
    /// For example:
    ///
    /// ```swift
    /// let primary = try PostgresCluster.start(fsync: false)
    /// let standby = try primary.startStandby(synchronous: true)
    /// let url = "host=\(primary.folder),\(standby.folder) dbname=postgres target_session_attrs=read-write"
    /// ```
    ///
    /// - Parameter synchronous: Whether commits wait for the standby.
    /// - Returns: The standby, a cluster of its own.
    /// - Throws: ``StartError`` when the backup or the server fails.
    public func startStandby(synchronous: Bool) throws -> PostgresCluster {
      let standbyFolder = try copyWithBaseBackup(for: "A standby", options: ["-R"])
      try Self.startServer(folder: standbyFolder, fsync: fsync, pgCtl: pgCtl, owner: owner)
      let standby = PostgresCluster(
        folder: standbyFolder, fsync: fsync, pgCtl: pgCtl, owner: owner,
        administrator: try PostgresConnection(Self.administratorURL(standbyFolder)))
      if synchronous {
        try runAsSuperuser("ALTER SYSTEM SET synchronous_standby_names = '*'")
        try runAsSuperuser("SELECT pg_reload_conf()")
      }
      // Streaming (and, when synchronous, counted as the synchronous standby) within a minute.
      let wanted = synchronous ? "sync" : "async"
      for _ in 0..<600 {
        let streaming = try administrator.withLock { connection in
          try connection.queryFirst(
            "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' "
              + "AND sync_state = ?", [.text(wanted)]
          ) { $0.int64(at: 0) }
        }
        if streaming == 1 { return standby }
        usleep(100_000)
      }
      throw StartError(
        description: "The standby in \(standbyFolder) did not start streaming within a minute")
    }

    /// Copies this running cluster with `pg_basebackup` (and the WAL it needs, plus `options`)
    /// into `<new folder>/data`, a folder of its own stopped and removed when the process exits
    /// (or its watchdog fires); returns the folder. `purpose` names what needs the copy in the
    /// error when `pg_basebackup` is missing.
    func copyWithBaseBackup(for purpose: String, options: [String]) throws -> String {
      let pgCtlFolder = URL(fileURLWithPath: pgCtl).resolvingSymlinksInPath()
        .deletingLastPathComponent()
      guard let pgBasebackup = Self.findProgram("pg_basebackup", preferring: pgCtlFolder)?.path
      else {
        throw StartError(
          description:
            "\(purpose) needs `pg_basebackup` (looked beside pg_ctl, in PATH and"
            + " /usr/lib/postgresql/*/bin): \(Self.installHint)")
      }
      let copyFolder = try Self.makeFolder(owner: owner)
      let stop =
        Self.commandLine(
          as: owner, [pgCtl, "stop", "-D", copyFolder + "/data", "-m", "immediate", "-w"])
        + " >/dev/null 2>&1; rm -rf " + Self.shellQuoted(copyFolder)
      try Self.startWatchdog(stopCommand: stop)
      Self.registerExitCleanup(stop)
      try Self.run(
        owner,
        [pgBasebackup, "-D", copyFolder + "/data"] + options + [
          "-X", "stream", "-h", folder, "-p", "\(port)", "-U", superuser, "--no-sync",
        ], log: copyFolder + "/basebackup.log")
      return copyFolder
    }

    /// Stops the server at once, as a crash does (`pg_ctl stop -m immediate`): its clients'
    /// connections break and new ones are refused.
    ///
    /// For example: `try primary.crash()`.
    ///
    /// - Throws: ``StartError`` when `pg_ctl` fails.
    public func crash() throws {
      try Self.run(
        owner, [pgCtl, "stop", "-D", folder + "/data", "-m", "immediate", "-w"],
        log: folder + "/pg_ctl.log")
    }

    /// Kills the server's postmaster with SIGKILL, as an operating system that runs out of
    /// memory does: its backends notice and end by themselves, and the server accepts no
    /// connection until ``restart()``, which waits for them (the new server refuses to start
    /// while a backend of the old one is attached to its shared memory).
    ///
    /// For example: `try cluster.killPostmaster()`.
    ///
    /// - Returns: The postmaster's process id.
    /// - Throws: ``StartError`` when the server is not running or does not die within 10 s.
    @discardableResult
    public func killPostmaster() throws -> Int32 {
      let file = folder + "/data/postmaster.pid"
      guard let text = try? String(contentsOfFile: file, encoding: .utf8),
        let first = text.split(separator: "\n").first, let processID = Int32(first)
      else {
        throw StartError(description: "The server is not running: no process id in \(file)")
      }
      guard kill(processID, SIGKILL) == 0 else {
        throw StartError(
          description:
            "Can't kill the postmaster \(processID): \(String(cString: strerror(errno)))")
      }
      // Dead once gone or a zombie: an init that does not reap orphans (a container's) leaves
      // it a zombie, which pg_ctl and the server take for a running server (`kill(pid, 0)`
      // succeeds). Its lock files go then, but only once no process of the old server runs
      // (each has the data directory as its working directory): the lock file names the old
      // shared memory, by which a new server refuses to start beside an old backend.
      let data = URL(fileURLWithPath: folder + "/data").resolvingSymlinksInPath().path
      for _ in 0..<3_000 {
        let stat = (try? String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8)) ?? ""
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        if stat.isEmpty { return processID }
        if state == "Z", Self.processes(workingIn: data).isEmpty {
          unlink(file)
          unlink(folder + "/.s.PGSQL.\(port).lock")
          return processID
        }
        usleep(10_000)
      }
      throw StartError(
        description: "The postmaster \(processID) or its backends did not end within 30 s")
    }

    /// The processes (not zombies) whose working directory is `folder`.
    private static func processes(workingIn folder: String) -> [Int32] {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      return entries.compactMap(Int32.init).filter { processID in
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink("/proc/\(processID)/cwd", &buffer, buffer.count - 1)
        guard length > 0 else { return false }
        let bytes = buffer.prefix(length).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self) == folder
      }
    }

    /// Restarts the server (`pg_ctl restart -m fast`): every connection is ended, and the
    /// server accepts new ones when this returns (the cluster's own connection, for
    /// ``freshDatabaseURL(_:)`` and ``runAsSuperuser(_:)``, is opened again).
    ///
    /// For example: `try cluster.restart()`.
    ///
    /// - Throws: ``StartError`` when `pg_ctl` fails.
    public func restart() throws {
      // After ``killPostmaster()`` the new server refuses to start until the old backends
      // have ended (each notices its postmaster's death by itself): tried again for 60 s.
      var attempt = 0
      while true {
        do {
          try Self.run(
            owner,
            [
              pgCtl, "restart", "-D", folder + "/data", "-m", "fast", "-w", "-t", "120", "-l",
              folder + "/server.log",
            ], log: folder + "/pg_ctl.log")
          break
        } catch let error as StartError {
          attempt += 1
          guard attempt < 300, error.description.contains("still in use") else { throw error }
          usleep(200_000)
        }
      }
      let connection = try PostgresConnection(Self.administratorURL(folder))
      administrator.withLock { $0 = connection }
    }

    /// Promotes a standby (``startStandby(synchronous:)``) to a primary that accepts writes,
    /// waiting until it does.
    ///
    /// For example: `try standby.promote()`.
    ///
    /// - Throws: ``StartError`` when `pg_ctl` fails.
    public func promote() throws {
      try Self.run(
        owner, [pgCtl, "promote", "-D", folder + "/data", "-w", "-t", "60"],
        log: folder + "/pg_ctl.log")
    }

    /// A server program in PATH, beside `preferring`, or in the newest
    /// /usr/lib/postgresql/*/bin.
    static func findProgram(_ name: String, preferring folder: URL? = nil) -> URL? {
      let files = FileManager.default
      var folders: [String] = []
      if let folder { folders.append(folder.path) }
      let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
      folders += path.split(separator: ":").map(String.init)
      let versions = (try? files.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
      folders += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        .map { "/usr/lib/postgresql/\($0)/bin" }
      for folder in folders {
        let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
        if files.isExecutableFile(atPath: candidate.path) { return candidate }
      }
      return nil
    }

    /// The user the server runs as: `postgres` when this process runs as root (the server refuses
    /// to run as root), else nobody in particular (the current user).
    private static func serverUser() throws -> (uid: uid_t, gid: gid_t)? {
      guard geteuid() == 0 else { return nil }
      guard let entry = getpwnam("postgres") else {
        throw StartError(
          description:
            "This process runs as root, so the PostgreSQL server must run as the `postgres` user,"
            + " which does not exist: \(installHint) (the package creates it)")
      }
      return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// A new private folder (short enough for a socket path), owned by the server's user.
    static func makeFolder(owner: (uid: uid_t, gid: gid_t)?) throws -> String {
      var template = Array("/tmp/kura-pg-XXXXXX".utf8CString)
      guard let created = mkdtemp(&template) else {
        throw StartError(
          description: "Can't create a folder in /tmp: \(String(cString: strerror(errno)))")
      }
      let folder = String(cString: created)
      if let owner {
        chown(folder, owner.uid, owner.gid)
      }
      chmod(folder, 0o700)
      return folder
    }

    /// A command line that runs `arguments` as the server's user.
    static func commandLine(
      as owner: (uid: uid_t, gid: gid_t)?, _ arguments: [String]
    ) -> String {
      let command = arguments.map(shellQuoted).joined(separator: " ")
      guard owner != nil else { return command }
      return shellQuoted(runuser) + " -u postgres -- " + command
    }

    /// `runuser`, which runs a program as another user (root only).
    private static let runuser =
      ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
      } ?? "runuser"

    static func shellQuoted(_ text: String) -> String {
      "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs a server program (as the server's user) to completion, its output going to `log`.
    static func run(
      _ owner: (uid: uid_t, gid: gid_t)?, _ arguments: [String], log: String
    ) throws {
      let output = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard output >= 0 else {
        throw StartError(description: "Can't write \(log): \(String(cString: strerror(errno)))")
      }
      defer { close(output) }
      let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
      defer { close(input) }
      let command = owner == nil ? arguments : [runuser, "-u", "postgres", "--"] + arguments
      let processID = try spawn(command, input: input, output: output)
      var status: Int32 = 0
      while waitpid(processID, &status, 0) < 0 && errno == EINTR {}
      // Exited normally with status 0 (the encoding of `WIFEXITED && WEXITSTATUS == 0`).
      guard status == 0 else {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let folder = (log as NSString).deletingLastPathComponent
        let serverLog = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
        throw StartError(
          description:
            "`\(arguments.joined(separator: " "))` failed (wait status \(status)):\n\(text)\n\(serverLog)"
        )
      }
    }

    /// Starts `arguments` with `input` as standard input and `output` as standard output and
    /// error, and no other descriptor of this process: a server (or watchdog) that outlives the
    /// tests must not hold another test's pipes open (Foundation's `Process` learns that a
    /// child exited when the last copy of such a descriptor closes).
    private static func spawn(_ arguments: [String], input: Int32, output: Int32) throws -> pid_t {
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_adddup2(&actions, input, 0)
      posix_spawn_file_actions_adddup2(&actions, output, 1)
      posix_spawn_file_actions_adddup2(&actions, output, 2)
      typealias CloseFrom =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
      if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
      } else {
        // Older C libraries: close each descriptor open now.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
          posix_spawn_file_actions_addclose(&actions, descriptor)
        }
      }
      var environment = ProcessInfo.processInfo.environment
      environment["LC_ALL"] = "C"
      let argv = arguments.map { strdup($0) } + [nil]
      let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
      defer { for pointer in argv + envp { free(pointer) } }
      var processID: pid_t = 0
      let result = posix_spawn(&processID, arguments[0], &actions, nil, argv, envp)
      guard result == 0 else {
        throw StartError(
          description: "Can't start `\(arguments[0])`: \(String(cString: strerror(result)))")
      }
      return processID
    }

    /// Starts a process, in a session of its own (so Control-C does not stop it), that waits
    /// for the end of a pipe whose only writer is this process, then runs `stopCommand`.
    static func startWatchdog(stopCommand: String) throws {
      var descriptors: [Int32] = [0, 0]
      guard pipe(&descriptors) == 0 else {
        throw StartError(description: "Can't create a pipe: \(String(cString: strerror(errno)))")
      }
      // The writing end stays open, unseen by child processes, until this process ends.
      _ = fcntl(descriptors[1], F_SETFD, FD_CLOEXEC)
      defer { close(descriptors[0]) }
      let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
      defer { close(null) }
      let setsid = "/usr/bin/setsid"
      let shell = ["/bin/sh", "-c", "read _; " + stopCommand]
      let command = FileManager.default.isExecutableFile(atPath: setsid) ? [setsid] + shell : shell
      _ = try spawn(command, input: descriptors[0], output: null)
    }

    /// Runs `stopCommand` when the process exits normally, before it returns, so no server
    /// outlives `swift test` (or the benchmark).
    static func registerExitCleanup(_ stopCommand: String) {
      let first = exitCleanup.withLock { commands in
        commands.append(stopCommand)
        return commands.count == 1
      }
      guard first else { return }
      atexit {
        for command in PostgresCluster.exitCleanup.withLock({ $0 }) { _ = system(command) }
      }
    }

    private static let exitCleanup = Mutex<[String]>([])
  }
#endif
