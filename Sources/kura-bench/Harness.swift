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
  _ name: String, kura: Duration, baseline: Duration, baselineName: String, target: Double?
) {
  let ratio = seconds(kura) / max(seconds(baseline), 1e-12)
  var line =
    "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) kura \(milliseconds(kura))"
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
