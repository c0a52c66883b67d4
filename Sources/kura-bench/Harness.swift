import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Times a closure several times and returns the median duration of one run.
func median(runs: Int = 5, _ body: () throws -> Void) rethrows -> Duration {
  let clock = ContinuousClock()
  var samples: [Duration] = []
  for _ in 0..<runs { samples.append(try clock.measure { try body() }) }
  samples.sort()
  return samples[samples.count / 2]
}

/// Times two closures in alternation (kura, baseline, kura, baseline, …) so that drift in the
/// machine's load affects both alike, and returns each one's median duration.
func medians(
  runs: Int = 7, kura: () throws -> Void, baseline: () throws -> Void
) rethrows -> (kura: Duration, baseline: Duration) {
  let clock = ContinuousClock()
  var kuraSamples: [Duration] = []
  var baselineSamples: [Duration] = []
  for run in 0..<runs {
    // Alternate which goes first, so neither always runs on a warmer cache.
    if run.isMultiple(of: 2) {
      kuraSamples.append(try clock.measure { try kura() })
      baselineSamples.append(try clock.measure { try baseline() })
    } else {
      baselineSamples.append(try clock.measure { try baseline() })
      kuraSamples.append(try clock.measure { try kura() })
    }
  }
  kuraSamples.sort()
  baselineSamples.sort()
  return (kuraSamples[runs / 2], baselineSamples[runs / 2])
}

/// A duration in milliseconds with three decimals.
func milliseconds(_ duration: Duration) -> String {
  String(format: "%.3f ms", seconds(duration) * 1000)
}

/// A duration in seconds.
func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Prints one comparison line: the workload, both medians, the ratio and the target.
func report(
  _ name: String, kura: Duration, baseline: Duration, baselineName: String, target: Double?,
  kuraName: String = "kura"
) {
  let ratio = seconds(kura) / max(seconds(baseline), 1e-12)
  if outputsJSON {
    emitJSON([
      "workload": .string(name.trimmingCharacters(in: .whitespaces)), "side": .string(kuraName),
      "kura_ns": .integer(nanoseconds(kura)), "baseline": .string(baselineName),
      "baseline_ns": .integer(nanoseconds(baseline)), "ratio": .number(ratio),
      "target": target.map { .number($0) } ?? .null,
    ])
    return
  }
  var line =
    "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(kuraName) \(milliseconds(kura))"
    + "  \(baselineName) \(milliseconds(baseline))  ratio \(String(format: "%.2f", ratio))×"
  if let target {
    line += "  (target ≤ \(String(format: "%.2f", target))×: \(ratio <= target ? "met" : "MISSED"))"
  }
  print(line)
  fflush(nil)
}

/// Peak resident memory of this process so far (VmHWM), in bytes; 0 where unknown.
func peakResidentBytes() -> Int {
  #if os(Linux)
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return 0
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let digits = line.filter(\.isNumber)
      return (Int(digits) ?? 0) * 1024
    }
    return 0
  #else
    var usage = rusage()
    getrusage(RUSAGE_SELF, &usage)
    return Int(usage.ru_maxrss)
  #endif
}

/// A fresh folder for one benchmark's files.
func benchmarkDirectory(_ name: String) -> URL {
  let url = URL(fileURLWithPath: NSTemporaryDirectory())
    .appendingPathComponent("kura-bench-\(name)-\(UUID().uuidString.prefix(8))")
  try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// One side of an alternating measurement: its name, what runs before each of its measured runs
/// (outside the timer: a fresh database, a new connection), and the measured work.
struct MeasuredSide {
  /// The name printed for the side (`kura`, `libpq`).
  var name: String
  /// Runs before each measured run, untimed.
  var prepare: () throws -> Void = {}
  /// The measured work.
  var run: () throws -> Void
}

/// The measured runs of one side: wall-clock durations and this thread's CPU time, each sorted.
struct MeasuredSamples {
  /// Wall-clock durations, shortest first.
  var wall: [Duration]
  /// The measuring thread's CPU time of each run (the client's share, not a server's), least
  /// first.
  var cpu: [Duration]
  /// Wall-clock durations in the order the runs ran (empty when not kept), so each can be set
  /// beside the other side's run next to it in time (``pairedRatio(_:_:)``).
  var inRunOrder: [Duration] = []

  /// The median wall-clock duration.
  var median: Duration { wall[wall.count / 2] }
  /// The median CPU time.
  var medianCPU: Duration { cpu[cpu.count / 2] }
}

/// Times each side `runs` times, taking turns and rotating which side goes first (for two
/// sides: kura, baseline, then baseline, kura, …, as ``medians(runs:kura:baseline:)`` does), so
/// that drift in the machine's load affects every side alike.
///
/// Without `rotating`, the sides keep their order (kura, baseline, kura, baseline, …), so
/// every run follows another side's run. Rotating makes each side run twice in a row at every
/// turn, and on the 2-core machine here a second run of 1,000 round trips in a row on the same
/// connection is often 2–3 times as slow as one that follows the other side's (the scheduler
/// has moved the client and its server process apart by then), whichever side it is: each
/// side's median then depends on how many of its runs were such second runs.
func alternatingSamples(
  runs: Int, rotating: Bool = true, _ sides: [MeasuredSide]
) throws -> [MeasuredSamples] {
  let clock = ContinuousClock()
  var wall = Array(repeating: [Duration](), count: sides.count)
  var cpu = wall
  for run in 0..<runs {
    for step in 0..<sides.count {
      let index = rotating ? (run + step) % sides.count : step
      try sides[index].prepare()
      let startCPU = threadCPUTime()
      wall[index].append(try clock.measure { try sides[index].run() })
      cpu[index].append(threadCPUTime() - startCPU)
    }
  }
  return sides.indices.map {
    MeasuredSamples(wall: wall[$0].sorted(), cpu: cpu[$0].sorted(), inRunOrder: wall[$0])
  }
}

/// The median of the ratios of `kura`'s runs to `baseline`'s, each run set beside the
/// baseline's run of the same round of ``alternatingSamples(runs:_:)`` (next to it in time);
/// `nil` when the runs' order was not kept. Where the machine switches between states that
/// slow every run alike for a while (on the 2-core machine here, 1,000 round trips take ~20 ms
/// or ~70 ms), each side's own median lands in either state by chance, and a pair's ratio
/// compares the two sides in the same one.
func pairedRatio(_ kura: MeasuredSamples, _ baseline: MeasuredSamples) -> Double? {
  guard !kura.inRunOrder.isEmpty, kura.inRunOrder.count == baseline.inRunOrder.count else {
    return nil
  }
  let ratios = zip(kura.inRunOrder, baseline.inRunOrder).map {
    seconds($0) / max(seconds($1), 1e-12)
  }.sorted()
  return ratios[ratios.count / 2]
}

/// Prints one comparison line with each side's median and range (shortest–longest run), the
/// ratio and the target, then a line with each side's median CPU time in this thread.
///
/// With `judgingPairs`, the target is judged by ``pairedRatio(_:_:)`` (printed on a line of
/// its own) rather than by the ratio of the medians.
func reportRanges(
  _ name: String, kura: MeasuredSamples, baseline: MeasuredSamples, baselineName: String,
  target: Double?, kuraName: String = "kura", judgingPairs: Bool = false
) {
  func range(_ samples: MeasuredSamples) -> String {
    String(
      format: "%.1f ms [%.1f–%.1f]", seconds(samples.median) * 1000,
      seconds(samples.wall[0]) * 1000, seconds(samples.wall[samples.wall.count - 1]) * 1000)
  }
  let ratio = seconds(kura.median) / max(seconds(baseline.median), 1e-12)
  let paired = judgingPairs ? pairedRatio(kura, baseline) : nil
  let judged = paired ?? ratio
  if outputsJSON {
    emitJSON([
      "workload": .string(name.trimmingCharacters(in: .whitespaces)), "side": .string(kuraName),
      "kura_ns": .integer(nanoseconds(kura.median)), "baseline": .string(baselineName),
      "baseline_ns": .integer(nanoseconds(baseline.median)), "ratio": .number(judged),
      "target": target.map { .number($0) } ?? .null,
      "kura_cpu_ns": .integer(nanoseconds(kura.medianCPU)),
      "baseline_cpu_ns": .integer(nanoseconds(baseline.medianCPU)),
    ])
    return
  }
  var line =
    "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(kuraName) \(range(kura))"
    + "  \(baselineName) \(range(baseline))  ratio \(String(format: "%.2f", ratio))×"
  if let target, paired == nil {
    line += "  (target ≤ \(String(format: "%.2f", target))×: \(ratio <= target ? "met" : "MISSED"))"
  }
  print(line)
  if let paired {
    var pairs =
      "  (median of the runs' paired ratios)".padding(toLength: 44, withPad: " ", startingAt: 0)
      + " ratio \(String(format: "%.2f", paired))×"
    if let target {
      pairs +=
        "  (target ≤ \(String(format: "%.2f", target))×: \(paired <= target ? "met" : "MISSED"))"
    }
    print(pairs)
  }
  if ProcessInfo.processInfo.environment["KURA_BENCH_SAMPLES"] != nil {
    // Every run's wall time, for telling a side's real cost from the machine's noise.
    func list(_ samples: MeasuredSamples) -> String {
      (samples.inRunOrder.isEmpty ? samples.wall : samples.inRunOrder).map {
        String(format: "%.1f", seconds($0) * 1000)
      }.joined(separator: " ")
    }
    print(
      (kura.inRunOrder.isEmpty ? "  (every run, ms)" : "  (every run in order, ms)")
        .padding(toLength: 44, withPad: " ", startingAt: 0)
        + " \(kuraName) \(list(kura))  \(baselineName) \(list(baseline))")
  }
  print(
    "  (client CPU in this thread, median)".padding(toLength: 44, withPad: " ", startingAt: 0)
      + " \(kuraName) \(String(format: "%.1f ms", seconds(kura.medianCPU) * 1000))"
      + "  \(baselineName) \(String(format: "%.1f ms", seconds(baseline.medianCPU) * 1000))")
  fflush(nil)
}

/// A child process running this program again with `environment` added (the child modes of
/// main.swift), spoken to by lines on its standard input and output.
final class BenchmarkChild {
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private var pending = Data()

  /// A line the child was not expected to say.
  struct UnexpectedLine: Error, CustomStringConvertible {
    /// What it said, and what was expected.
    var description: String
  }

  init(_ environment: [String: String]) throws {
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = input
    process.standardOutput = output
    try process.run()
  }

  /// Sends one line.
  func send(_ line: String) {
    input.fileHandleForWriting.write(Data((line + "\n").utf8))
  }

  /// The next line, or `nil` when the child closed its output (it ended).
  func readLine() -> String? {
    while true {
      if let newline = pending.firstIndex(of: 10) {
        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
        pending.removeSubrange(pending.startIndex...newline)
        return line
      }
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { return nil }
      pending.append(chunk)
    }
  }

  /// Reads the next line, which must be `expected`.
  func expect(_ expected: String) throws {
    let line = readLine()
    guard line == expected else {
      throw UnexpectedLine(
        description: "a child process said \(line.map { "`\($0)`" } ?? "nothing"), not"
          + " `\(expected)` (its error is above)")
    }
  }

  /// Closes its input and waits until it ends; whether it ended well.
  @discardableResult
  func finish() -> Bool {
    input.fileHandleForWriting.closeFile()
    process.waitUntilExit()
    return process.terminationStatus == 0
  }
}
