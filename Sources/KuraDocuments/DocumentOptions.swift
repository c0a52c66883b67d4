import Foundation
import KuraBase

/// How a ``DocumentStore`` saves, recovers and watches its file.
///
/// For example:
///
/// ```swift
/// let options = DocumentOptions(durability: .powerLoss, onDamage: .quarantine)
/// let store = try DocumentStore<[CashData]>(.documents("cashData.json"), options: options)
/// ```
public struct DocumentOptions: Sendable, Equatable {
  /// What "saved" means when a change returns.
  ///
  /// For example:
  ///
  /// ```swift
  /// let options = DocumentOptions(durability: .powerLoss)   // fdatasync after each change
  /// ```
  public enum Durability: Sendable, Equatable {
    /// The change is in the operating system's file cache when the call returns: it survives the
    /// process being killed (even with `kill -9`) but not a power cut or a kernel crash.
    /// Whole-file replacements are always flushed to the disk, whatever this setting.
    case processCrash
    /// The change is on the disk (`fdatasync`) when the call returns: it also survives a power cut.
    case powerLoss
  }

  /// What to do when the file is damaged (not JSON, truncated, empty, binary, wrong shape).
  ///
  /// For example:
  ///
  /// ```swift
  /// let store = try DocumentStore<[CashData]>(
  ///   .documents("cashData.json"), options: DocumentOptions(onDamage: .quarantine))
  /// if let damage = store.recoveredDamage { print(damage) }
  /// ```
  public enum DamagePolicy: Sendable, Equatable {
    /// Opening fails with a ``DocumentError`` and the file is left as it is.
    case fail
    /// The file is moved aside to `<name>.damaged-<timestamp>`, an empty document is started,
    /// and the error is kept in ``DocumentStore/recoveredDamage``.
    case quarantine
  }

  /// What "saved" means when a change returns; ``Durability/processCrash`` by default.
  public var durability: Durability
  /// What to do with a damaged file; ``DamagePolicy/fail`` by default.
  public var onDamage: DamagePolicy
  /// Whether changes saved by other processes are loaded as soon as they happen (within
  /// milliseconds, through a file-change watch), firing observers; `true` by default.
  public var observesOtherProcesses: Bool
  /// The journal size, in bytes, below which a collection's journal is never compacted into
  /// the file (1 MiB by default); past it, the journal is compacted once it is also larger
  /// than the file itself, so compaction costs O(1) per change on average.
  public var compactionThreshold: Int

  /// Creates options.
  ///
  /// For example:
  ///
  /// ```swift
  /// let options = DocumentOptions(onDamage: .quarantine)
  /// ```
  ///
  /// - Parameters:
  ///   - durability: What "saved" means when a change returns.
  ///   - onDamage: What to do with a damaged file.
  ///   - observesOtherProcesses: Whether other processes' changes are loaded as they happen.
  ///   - compactionThreshold: The smallest journal size, in bytes, that is compacted.
  public init(
    durability: Durability = .processCrash, onDamage: DamagePolicy = .fail,
    observesOtherProcesses: Bool = true, compactionThreshold: Int = 1024 * 1024
  ) {
    self.durability = durability
    self.onDamage = onDamage
    self.observesOtherProcesses = observesOtherProcesses
    self.compactionThreshold = compactionThreshold
  }
}
