import KuraBase
import KuraStore

#if canImport(CLibPQ)
  import Foundation

  /// PostgreSQL's SQL for the predicate translator: `"quoted"` identifiers, `?` parameters (the
  /// statements rewrite them as `$N`), `TRUE`/`FALSE`, and the functions the store's setup creates
  /// in its schema (``PostgresStoreEngine/functionsSQL``): `kura_key` (text as Swift compares it:
  /// the NFC form's UTF-8 bytes) and `kura_real` (NaN as NULL).
  package struct PostgresDialect: SQLDialect {
    package func booleanLiteral(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }

    /// `kura_key(expression)`: equal exactly when Swift's `==` says so (canonical equivalence),
    /// ordered as Swift's `<` (Unicode scalars of the NFC form).
    package func swiftStringComparable(_ expression: String) -> String? {
      "kura_key(\(expression))"
    }

    /// A key function: both operands of a comparison are wrapped.
    package var wrapsOneOperandOfAComparison: Bool { false }

    /// `kura_real(expression)`: NaN (which PostgreSQL orders above every number and calls equal
    /// to itself) as NULL; `-0.0` already compares equal to `0.0`.
    package func exactReal(_ expression: String) -> String? {
      "kura_real(\(expression))"
    }

    /// No exact form (Swift matches whole characters under canonical equivalence): in memory.
    package func stringContains(_ text: String, _ other: String) -> String? { nil }

    /// No exact form (Swift matches whole characters under canonical equivalence): in memory.
    package func stringStartsWith(_ text: String, _ prefix: String) -> String? { nil }

    /// `SELECT value FROM json_array_elements_text(?::json)` over a JSON array of the integers or
    /// texts (see `boundListJSON(_:)`), cast back to `bigint` for integers.
    package func boundList(_ values: [DatabaseValue], parameter: String) -> (
      subquery: String, argument: DatabaseValue
    )? {
      guard let list = boundListJSON(values) else { return nil }
      let value = list.integers ? "kura_item::bigint" : "kura_item"
      return (
        "SELECT \(value) AS value FROM json_array_elements_text(CAST(\(parameter) AS json)) "
          + "AS kura_list(kura_item)",
        .text(list.json)
      )
    }

    /// `NULL`: no limit.
    package var noLimit: DatabaseValue { .null }

    /// `IS NOT DISTINCT FROM`: PostgreSQL's `IS` takes only `NULL`, `TRUE` and `FALSE`.
    package var nullSafeEqual: String { " IS NOT DISTINCT FROM " }

    /// `IS DISTINCT FROM`.
    package var nullSafeNotEqual: String { " IS DISTINCT FROM " }

    /// NULL (Swift's `nil`) first in the forward order, as Foundation's `SortDescriptor` orders
    /// optionals and SQLite orders NULL; PostgreSQL puts NULL last unless told.
    package func sortDirection(ascending: Bool) -> String {
      ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"
    }

    /// The id for integer keys, else `kura_row` (the hidden column numbering rows as they are
    /// inserted, see ``PostgresStoreEngine/primaryKeyDefinition(_:)``): SQLite's rowid order.
    package func rowOrder(_ schema: ModelSchema) -> String? {
      schema.primaryKey.kind == .integer
        ? quoteIdentifier(schema.primaryKey.name) : PostgresStoreEngine.rowColumn
    }

    /// `kura_int_add(a, b)` and so on: Swift's 64-bit result, or NULL where Swift traps
    /// (overflow, division by zero), so such a row matches nothing.
    package func integerArithmetic(_ op: IntegerOperation, _ lhs: String, _ rhs: String) -> String {
      "kura_int_\(op.rawValue)(\(lhs), \(rhs))"
    }

    /// `kura_real_add(a, b)` and so on: IEEE's result (±infinity on overflow, ±0 on underflow,
    /// which PostgreSQL reports as errors), NaN as NULL.
    package func floatingArithmetic(_ op: IntegerOperation, _ lhs: String, _ rhs: String) -> String
    {
      "kura_real_\(op.rawValue)(\(lhs), \(rhs))"
    }

    /// `kura_int_neg(a)`: NULL for `Int.min`, whose negation traps in Swift.
    package func integerNegation(_ operand: String) -> String { "kura_int_neg(\(operand))" }
  }
#endif
