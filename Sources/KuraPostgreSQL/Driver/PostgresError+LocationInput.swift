import KuraBase

extension PostgresError: LocationInputError {
  package var isInvalidLocationInput: Bool { code == .invalidLocation }
}
