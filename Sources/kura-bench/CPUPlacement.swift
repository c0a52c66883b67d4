#if canImport(CLibPQ)
  import CBenchSupport
  import Foundation

  /// Runs `body` with the calling thread and the server processes connected to `databases`
  /// (on `server`'s own cluster) on one CPU, the one this thread runs on, and puts every one
  /// back where it could run before. Returns `body`'s result and a note saying where the work
  /// ran, for the benchmark's output.
  ///
  /// For workloads of many short round trips: on the 2-core machine here a round trip takes
  /// ~20 µs when the client and its server process share a CPU and up to ~70 µs when the
  /// scheduler has placed them apart, and that placement, which persists for a while, falls
  /// on one side or the other by chance. On one CPU both sides run as a client and its server
  /// process taking turns. On a server this run didn't start (`--url`), or where any of the
  /// processes can't be moved (another user's, without the privilege), nothing is moved.
  func onOneCPU<Result>(
    _ server: PostgresBenchmarkServer, databases: [BenchmarkDatabase],
    _ body: () throws -> Result
  ) throws -> (Result, note: String) {
    guard server.cluster != nil, !databases.isEmpty else {
      return (try body(), "not placed: the server is not this run's own")
    }
    let processes = server.serverProcesses(of: databases)
    guard !processes.isEmpty else {
      return (try body(), "not placed: the server processes could not be listed")
    }
    let cpu = max(kura_bench_current_cpu(), 0)
    let size = Int(kura_bench_cpu_set_size())
    var saved: [(pid: Int32, set: [UInt8])] = []
    for pid in [0] + processes {
      var set = [UInt8](repeating: 0, count: size)
      if kura_bench_place(pid, Int32(cpu), &set) == 0 { saved.append((pid, set)) }
    }
    func restore() {
      for (pid, set) in saved {
        var set = set
        _ = kura_bench_place(pid, -1, &set)
      }
    }
    // All or nothing: a side whose processes stayed where they were would not be placed alike.
    guard saved.count == processes.count + 1 else {
      let unmoved = processes.count + 1 - saved.count
      restore()
      return (
        try body(),
        "not placed: \(unmoved) of \(processes.count + 1) processes (this thread included) could"
          + " not be moved"
      )
    }
    defer { restore() }
    let note = "this thread and the \(processes.count) server processes of both sides on CPU \(cpu)"
    return (try body(), note)
  }

#endif
