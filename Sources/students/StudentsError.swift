/// A failure of the `students` app that is not the store's: printed as
/// `students: error: <message>`, exit status 1.
struct StudentsError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
