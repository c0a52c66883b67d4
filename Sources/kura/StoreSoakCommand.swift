import Foundation
import Kura
import KuraCLI
import KuraPostgreSQL
import Synchronization

/// `kura store soak`: the PostgreSQL engine's crash guarantees, run outside the tests.
let storeSoakCommand = Command(
  name: "soak",
  abstract: "Crashes a throwaway PostgreSQL server under writer and feed reader processes.",
  discussion: """
    Starts a throwaway PostgreSQL cluster (fsync off), a store in it, feed reader processes \
    (two reading `changeSets()`, one polling `history(since:)`) and writer processes, each \
    alternating plain saves with `ModelContainer.write` blocks that increment the writer's \
    counter. Then, at seeded random moments, it crashes the server --crashes times, by \
    `pg_ctl stop -m immediate` or by SIGKILL of the postmaster (in turn, seeded), and starts it \
    again. Afterwards it checks that every acknowledged save is in the table with the token its \
    save returned, that no save reported failed is, that no two saves share a history token, \
    that every reader got every change set once, in token order, with no gap, and that each \
    writer's counter equals its committed `write` blocks; it prints what it counted and exits \
    1 on any violation. A save whose outcome stayed unknown is counted and decided by its row. \
    It stops crashing after --seconds seconds; with --crashes 0 the writers save for \
    --seconds seconds without a crash. With --history-count the writers keep only that many \
    saves of history, so trims (and the trigger that keeps their commit ids) run through the \
    crashes too; no feed readers run then (they could not keep up), and the other checks hold \
    as before.
    """,
  options: [
    Option(
      "crashes", help: "How many crashes (10 by default; 0: none, a comparison).",
      valueName: "n"),
    Option(
      "seconds", help: "Start no crash after this many seconds (600 by default).",
      valueName: "s"),
    Option("writers", help: "Writer processes (4 by default).", valueName: "n"),
    Option("seed", help: "The seed of the crash moments (the time by default).", valueName: "n"),
    soakHistoryCountOption,
  ],
  run: { invocation in
    let crashes = try invocation.option("crashes", in: 0...) ?? 10
    let seconds = try invocation.option("seconds", in: 1...) ?? 600
    let writers = try invocation.option("writers", in: 1...) ?? 4
    let seed: Int = try invocation.option("seed") ?? Int(Date().timeIntervalSince1970)
    let historyCount: Int? = try invocation.option("history-count", in: 1...)
    #if canImport(KuraSyncServer) && canImport(Glibc)
      try StoreSoak(writers: writers, historyCount: historyCount).run(
        crashes: crashes, seconds: seconds, seed: UInt64(truncatingIfNeeded: seed))
    #else
      throw UsageError(
        "`kura store soak` is not available on this platform (it needs PostgreSQL's server "
          + "programs, on Linux).", command: invocation.commandPath)
    #endif
  })

/// The `<url>` argument of a soak's child processes.
private let soakURLArgument = Argument("url", help: "The database's URL.")

/// `--history-count`: how many saves of history the writers keep.
private let soakHistoryCountOption = Option(
  "history-count",
  help: "Keep only this many saves of history (the writers' retention; no feed readers run).",
  valueName: "n")

/// The configuration of a soak's child processes: a commit answer lost in a crash is waited
/// for while the server restarts.
private func soakConfiguration(_ invocation: Invocation) throws -> ModelConfiguration {
  let text: String = try invocation.argument("url")
  guard let url = URL(string: text) else {
    throw UsageError("`\(text)` is not a valid value for <url>.", command: invocation.commandPath)
  }
  var configuration = ModelConfiguration.postgres(url)
  configuration.postgresSettings.commitOutcomeWait = .seconds(30)
  if let count: Int = try invocation.option("history-count", in: 1...) {
    configuration.historyRetention = HistoryRetention(maximumAge: nil, maximumCount: count)
  }
  return configuration
}

/// One line on standard output, written at once (the soak reads them as they come).
private func soakAnswer(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Ends the process when its standard input ends (the soak ended or was killed), or, with
/// `stop`, when it reads a `stop` line.
private func watchStandardInput(_ stop: StoreSoakStop? = nil) {
  Thread {
    while let line = readLine() {
      if line == "stop", let stop {
        stop.requested.store(true, ordering: .relaxed)
        return
      }
    }
    exit(0)
  }.start()
}

/// A writer's stop request.
final class StoreSoakStop: Sendable {
  let requested = Atomic<Bool>(false)
}

/// `kura store soak-writer <url> <writer>`: saves until it reads `stop`, then prints
/// `done <n>`. Each save is one line: `ok <id> <token>`, `failed <id> <code>` or
/// `unknown <id>` (its commit outcome could not be decided). Every third save is a
/// `ModelContainer.write` block that also increments the writer's counter.
let storeSoakWriterCommand = Command(
  name: "soak-writer",
  abstract: "One writer process of `kura store soak` (stops on `stop` on standard input).",
  arguments: [soakURLArgument, Argument("writer", help: "The writer's number.")],
  options: [soakHistoryCountOption],
  run: { invocation in
    let writer: Int = try invocation.argument("writer")
    let container = try ModelContainer(
      for: SoakMemo.self, SoakCounter.self, configurations: try soakConfiguration(invocation))
    let context = ModelContext(container)
    let stop = StoreSoakStop()
    watchStandardInput(stop)
    soakAnswer("ready")
    var number = 0
    // Bounded by the soak, which sends `stop` (or ends, closing standard input).
    while !stop.requested.load(ordering: .relaxed) {
      let id = "w\(writer)-\(number)"
      number += 1
      do {
        let token: HistoryToken
        if number.isMultiple(of: 3) {
          token = try container.write { context in
            var counter =
              try context.model(for: "w\(writer)", as: SoakCounter.self)
              ?? SoakCounter(id: "w\(writer)", value: 0)
            counter.value += 1
            try context.insert(counter)
            try context.insert(SoakMemo(id: id, writer: writer, kind: "write"))
            return try context.save().token
          }
        } else {
          try context.insert(SoakMemo(id: id, writer: writer, kind: "save"))
          token = try context.save().token
        }
        soakAnswer("ok \(id) \(token.rawValue)")
      } catch let error as StoreError where error.code == .commitOutcomeUnknown {
        context.rollback()
        soakAnswer("unknown \(id)")
      } catch {
        context.rollback()
        let code = (error as? StoreError)?.code.rawValue ?? "other"
        soakAnswer("failed \(id) \(code)")
        // The server is down: try again a little later rather than spin.
        usleep(20_000)
      }
    }
    soakAnswer("done \(number)")
  })

/// `kura store soak-reader <url> feed|history`: prints `ready <token>`, then one line per change
/// set it gets, `set <token> <ids>` (the memos inserted, separated by commas, or `-`), from
/// `changeSets()` (`feed`) or from `history(since:)` polled every 50 ms (`history`), until its
/// standard input ends.
let storeSoakReaderCommand = Command(
  name: "soak-reader",
  abstract: "One feed reader process of `kura store soak` (ends with its standard input).",
  arguments: [
    soakURLArgument,
    Argument("kind", help: "`feed` (reads changeSets()) or `history` (polls history(since:))."),
  ],
  run: { invocation in
    let kind: String = try invocation.argument("kind")
    guard kind == "feed" || kind == "history" else {
      throw UsageError(
        "`\(kind)` is not a valid value for <kind>: give `feed` or `history`.",
        command: invocation.commandPath)
    }
    let container = try ModelContainer(
      for: SoakMemo.self, SoakCounter.self, configurations: try soakConfiguration(invocation))
    func line(_ changeSet: ChangeSet) -> String {
      let ids = changeSet.inserted(SoakMemo.self)
      return "set \(changeSet.token.rawValue) "
        + (ids.isEmpty ? "-" : ids.joined(separator: ","))
    }
    watchStandardInput()
    if kind == "feed" {
      let stream = try container.changeSets()
      soakAnswer("ready \(try container.currentHistoryToken().rawValue)")
      let ended = DispatchSemaphore(value: 0)
      Task {
        do {
          for try await changeSet in stream { soakAnswer(line(changeSet)) }
          soakAnswer("error the feed ended")
        } catch {
          soakAnswer("error \(error)")
        }
        ended.signal()
      }
      ended.wait()
      exit(1)
    }
    var token = try container.currentHistoryToken()
    soakAnswer("ready \(token.rawValue)")
    // Bounded by the soak: the process ends with its standard input.
    while true {
      // A failed read (the server is down) is tried again at the next poll.
      do {
        for changeSet in try container.history(since: token) {
          soakAnswer(line(changeSet))
          token = changeSet.token
        }
      } catch let error as StoreError where error.code == .historyTrimmed {
        soakAnswer("error \(error)")
        exit(1)
      } catch {}
      usleep(50_000)
    }
  })

/// The model a soak's writers save: one memo per save.
struct SoakMemo: PersistentModel, Equatable {
  var id: String
  var writer: Int
  var kind: String
}

/// A writer's counter, incremented by each of its `write` blocks.
struct SoakCounter: PersistentModel, Equatable {
  var id: String
  var value: Int
}
