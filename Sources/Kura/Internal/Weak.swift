/// A reference that doesn't keep its object alive.
struct Weak<Object: AnyObject & Sendable>: Sendable {
  weak var object: Object?
  init(_ object: Object) { self.object = object }
}
