import Foundation

/// What a child that `run(_:_:environment:input:timeout:)` gave up on was doing, for the
/// test's failure message: its state and each thread's kernel wait, the other processes still
/// holding its output pipe open (a child that exited while a process it started, or a server
/// started by another test, kept the pipe's writing end looks hung from here), and, for a
/// PostgreSQL store, the cluster's busy backends and what each waits for.
///
/// A fresh-clone CI run once timed out `kura store schema` on PostgreSQL (60 s) while another
/// PostgreSQL test overran its limit, and left nothing to tell a stalled server from a
/// deadlocked client or a leaked pipe; this report tells them apart.
///
/// - Parameters:
///   - processID: The child, still unreaped (a zombie if it exited).
///   - output: The reading end of the child's standard output.
///   - environment: The child's environment (`KURA_STORE_URL` names a PostgreSQL store).
/// - Returns: Lines to add to the failure.
package func hungChildReport(processID: pid_t, output: FileHandle, environment: [String: String])
  -> String
{
  var lines: [String] = []
  let proc = "/proc/\(processID)"
  func read(_ path: String) -> String? {
    (try? String(contentsOfFile: path, encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
  // The state is the field after the parenthesized command name (which may hold spaces).
  let state = read(proc + "/stat").flatMap { stat in
    stat.range(of: ")", options: .backwards).map {
      String(stat[$0.upperBound...].dropFirst().prefix(1))
    }
  }
  lines.append("child \(processID): state \(state ?? "gone")")
  let threads = (try? FileManager.default.contentsOfDirectory(atPath: proc + "/task")) ?? []
  for thread in threads.sorted().prefix(16) {
    let task = "\(proc)/task/\(thread)"
    lines.append(
      "  thread \(thread) \(read(task + "/comm") ?? "?"): wchan \(read(task + "/wchan") ?? "?"), "
        + "syscall \(read(task + "/syscall")?.split(separator: " ").first ?? "?")")
  }
  if let stack = read(proc + "/stack"), !stack.isEmpty {
    lines.append(
      "  kernel stack: " + stack.split(separator: "\n").prefix(8).joined(separator: " < "))
  }
  lines.append(contentsOf: pipeHolders(output.fileDescriptor, except: [getpid(), processID]))
  if let url = environment["KURA_STORE_URL"] {
    lines.append(postgresActivity(url))
  }
  return lines.joined(separator: "\n")
}

/// The processes, other than those in `except`, holding the pipe whose end `descriptor` is.
private func pipeHolders(_ descriptor: Int32, except: Set<pid_t>) -> [String] {
  var status = stat()
  guard fstat(descriptor, &status) == 0 else { return ["pipe: fstat failed"] }
  let target = "pipe:[\(status.st_ino)]"
  var holders: [String] = []
  let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  for process in processes where Int32(process).map({ !except.contains($0) }) ?? false {
    let folder = "/proc/\(process)/fd"
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    let holds = descriptors.contains {
      (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)) == target
    }
    guard holds else { continue }
    let command =
      (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(process)/cmdline")))
      .map { String(decoding: $0.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self) } ?? "?"
    holders.append("  \(process): \(command.prefix(160))")
  }
  return holders.isEmpty
    ? ["output pipe held by no other process"]
    : ["output pipe also held by:"] + holders
}

/// The busy backends (not idle, and not a background process's idle wait) of the cluster `url` is on, each with what it waits for; asked with a
/// 5-second limit on connecting and on the query, so a stalled server is reported, not waited
/// for.
private func postgresActivity(_ url: String) -> String {
  // Asked through `psql` (this support target links no libpq), bounded by `timeout`.
  let sql =
    "SELECT pid, coalesce(datname, ''), coalesce(backend_type, ''), coalesce(state, ''), "
    + "coalesce(wait_event_type || '/' || wait_event, ''), "
    + "coalesce(round(extract(epoch FROM now() - xact_start))::text, ''), "
    + "left(coalesce(query, ''), 120) FROM pg_stat_activity "
    + "WHERE pid <> pg_backend_pid() AND coalesce(state, '') <> 'idle' "
    + "AND coalesce(wait_event_type, '') <> 'Activity' ORDER BY pid"
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
  process.arguments = ["5", "psql", "-X", "-A", "-t", "-F", " | ", "-d", url, "-c", sql]
  let output = childPipe()
  process.standardOutput = output
  process.standardError = output
  do {
    try process.run()
  } catch {
    return "PostgreSQL: could not ask the server: \(error)"
  }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  let rows = String(decoding: data, as: UTF8.self).split(separator: "\n")
  return "PostgreSQL: \(rows.count) busy backends (pid | database | type | state | wait | "
    + "transaction seconds | query)\n" + rows.map { "  " + $0 }.joined(separator: "\n")
}
