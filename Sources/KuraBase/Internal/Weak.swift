/// A reference that doesn't keep its object alive.
package struct Weak<Object: AnyObject & Sendable>: Sendable {
  package weak var object: Object?
  package init(_ object: Object) { self.object = object }
}
