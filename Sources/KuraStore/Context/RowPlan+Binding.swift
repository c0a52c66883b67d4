import Foundation
import KuraBase
import KuraSQLite

extension RowPlan {
  /// Binds every column of `model` (parameter `n + 1` is column `n`).
  @inline(__always)
  package func bind<Model>(_ model: Model, to statement: StoreStatement) throws {
    try withUnsafePointer(to: model) { try bind(UnsafeRawPointer($0), to: statement) }
  }

  /// Binds every column of the model at `base` (a model of the plan's type), read in place.
  @inline(__always)
  package func bind(_ base: UnsafeRawPointer, to statement: StoreStatement) throws {
    try statement.bindRow(layout, from: base)
  }
}
