/// An error that can say it refuses a location a person gave (a store URL or connection string
/// whose value the engine would refuse only when connecting), so a command reports it as a
/// mistake in its argument rather than as a server that can't be reached.
package protocol LocationInputError: Error {
  /// Whether the error refuses the location as written.
  var isInvalidLocationInput: Bool { get }
}
