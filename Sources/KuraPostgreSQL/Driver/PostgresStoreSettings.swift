import KuraBase
import KuraStore

/// How a PostgreSQL store's container uses the server: how many connections it opens, how long
/// callers wait for one, how long finding out an interrupted commit's outcome may take, and how
/// quickly its change listener notices a dead connection (``ModelConfiguration/postgresSettings``).
///
/// What the server does on each connection is set in the URL instead: Kura's defaults
/// (`lock_timeout` of 30 seconds, TCP keepalives and a 30-second `tcp_user_timeout`) apply unless
/// the URL gives its own (`?keepalives_idle=10&options=-c%20lock_timeout%3D5s`).
///
/// For example:
///
/// ```swift
/// var configuration = ModelConfiguration.postgres(URL(string: "postgresql://db/app")!)
/// configuration.postgresSettings.maximumConnections = 8
/// configuration.postgresSettings.connectionWait = .seconds(5)
/// ```
public struct PostgresStoreSettings: Sendable, Hashable {
  /// The most connections the container opens for reading and writing at once (at least 2: the
  /// writer and one reader); the change listener, opened by the first observer, is one more.
  /// 4 by default. A caller that finds them all busy waits up to ``connectionWait``.
  ///
  /// For example: `settings.maximumConnections = 8`.
  public var maximumConnections = 4

  /// How long a read waits for a connection when ``maximumConnections`` are all busy, and a
  /// save for the container's writer connection while another thread's write holds it, before
  /// it fails with ``StoreError/Code/busy``; 30 seconds by default.
  ///
  /// For example: `settings.connectionWait = .seconds(5)`.
  public var connectionWait = Duration.seconds(30)

  /// How long a save whose connection broke while committing may spend finding out whether it
  /// committed (connecting again and reading its commit marker) before it
  /// fails with ``StoreError/Code/commitOutcomeUnknown``; 15 seconds by default.
  ///
  /// For example: `settings.commitOutcomeWait = .seconds(60)`.
  public var commitOutcomeWait = Duration.seconds(15)

  /// How long the change listener's connection may stay silent before the listener checks it
  /// (listening again), and how long the answer may take before the connection counts as dead
  /// and is opened again (catching up on what it missed); 5 seconds by default, so a half-open
  /// connection (a host that vanished, a black-holed network path) is noticed within about 10
  /// seconds.
  ///
  /// For example: `settings.listenerHeartbeat = .seconds(2)`.
  public var listenerHeartbeat = Duration.seconds(5)

  /// Kura's defaults.
  ///
  /// For example: `let settings = PostgresStoreSettings()`.
  public init() {}
}
