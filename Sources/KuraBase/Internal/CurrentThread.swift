#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Identifies the calling thread, so a lock holder can tell its own re-entrant call (which
/// would deadlock or trap on a non-recursive lock) from another thread's.
package enum CurrentThread {
  /// A number unique among the threads alive now; never 0.
  package static var identifier: UInt {
    #if canImport(Darwin)
      return UInt(bitPattern: pthread_self())
    #else
      return UInt(pthread_self())
    #endif
  }
}
