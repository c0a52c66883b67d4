import Foundation
import KuraBase
import KuraSQLite

/// A model's search index over its searchable text columns (``Schema/Declaration/searchable(_:)``):
/// kept in step with the table by every writer, in the writer's transaction, and asked for the
/// models whose searchable text holds every word of a search, as the start of a word or anywhere
/// inside the text.
///
/// How the index is built and queried is the engine's (SQLite: ``SQLiteSearchIndex``, FTS5);
/// splitting what a user typed into words is shared.
package struct SearchIndex {
  package let schema: ModelSchema
  package let columns: [String]

  /// The words of what a user typed (split at spaces and punctuation).
  package static func words(of text: String) -> [String] {
    text.split { $0.isWhitespace || $0.isPunctuation && $0 != "'" }.map(String.init)
  }

  /// The condition on the model's table that every word of `text` satisfies, or `nil` when the
  /// text has no word.
  package func condition(for text: String, engine: StoreEngine) -> (
    sql: String, arguments: [DatabaseValue]
  )? {
    let words = Self.words(of: text)
    guard !words.isEmpty else { return nil }
    return engine.searchCondition(self, words: words)
  }

  /// The `ORDER BY` expression putting the best matches of `text` first, or `nil` when the text
  /// has no word or the engine does not rank.
  package func order(for text: String, engine: StoreEngine) -> (
    sql: String, arguments: [DatabaseValue]
  )? {
    let words = Self.words(of: text)
    guard !words.isEmpty else { return nil }
    return engine.searchOrder(self, words: words)
  }
}
