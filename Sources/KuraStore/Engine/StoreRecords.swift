import Foundation
import KuraBase
import KuraSQLite

/// Kura's own records in a store (`kura_metadata`'s format, `kura_models`' columns) as far as an
/// engine reads them below the store (SQLite's format upgrade, ``SQLiteFormatUpgrade``), and the
/// messages the engine and the store's migrations give about them alike.
package enum StoreRecords {
  /// The format of Kura's metadata tables this version writes (`kura_metadata`'s
  /// `storeFormat`).
  package static let format = 2

  /// A column as recorded in `kura_models`.
  package struct Column: Codable, Equatable {
    package var name: String
    package var kind: String
    package var optional: Bool
  }

  /// The columns of a `kura_models` record (`text`, the record of `model`), or
  /// ``StoreError/Code/damaged`` naming the model when the record can't be read.
  package static func columns(_ text: String, model: String, url: URL?, file: String) throws
    -> [Column]
  {
    do {
      return try JSONDecoder().decode([Column].self, from: Data(text.utf8))
    } catch {
      throw StoreError(
        .damaged, model: model, url: url,
        message:
          "Can't open store \(file): its record of model `\(model)` (table `kura_models`) is "
          + "not readable. The file was left untouched; restore it from a backup, or check it "
          + "with `kura store check`.")
    }
  }

  /// The refusal of a table whose text key holds ids Swift's `==` calls equal (`equal`), stored
  /// by earlier versions while the key compared bytes.
  package static func equivalentKeysRefusal(
    model: String, key: String, equal: [String], url: URL?, file: String
  ) -> StoreError {
    let shown = equal.map { "`\(escaped($0))`" }.joined(separator: " and ")
    return StoreError(
      .migrationRefused, model: model, property: key, column: key, url: url,
      message:
        "Can't upgrade store \(file) to format \(format): `\(model)` has rows "
        + "whose `\(key)` values \(shown) are equal by Swift's `==`, which earlier versions "
        + "stored as different ids. Nothing was changed; open it with the previous version and "
        + "delete one of them or give it another id.")
  }

  /// `text` with every scalar outside ASCII written as `\u{…}`, so equivalent forms differ.
  package static func escaped(_ text: String) -> String {
    text.unicodeScalars.map { scalar in
      scalar.isASCII
        ? String(scalar) : "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }.joined()
  }
}
