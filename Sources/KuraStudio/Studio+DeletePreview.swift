import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncServer

// What deleting a row would do, for the row page: the studio is read-only, so this only says
// it (the cascade, the cleared references, the rows a `deny` rule refuses for).

extension Studio {
  struct DeletePreviewAnswer: Encodable {
    struct Rows: Encodable {
      var model: String
      var property: String
      var deleteRule: String
      var keys: [String]
      var shown: [String]
    }
    var summary: String
    var deleted: [Rows]
    var nullified: [Rows]
    var refusals: [Rows]
    var truncated: Bool
  }

  func deletePreview(_ query: [String: String]) throws -> StudioResponse {
    let (inspector, model, models) = try model(query)
    guard let token = query["key"], let key = RowCursor.keyValue(token: Substring(token)) else {
      throw StudioRequestError(message: "Give the row's key: ?key=… as the rows page links it.")
    }
    let preview = try inspector.deletePreview(of: model, key: key, among: models)
    func rows(_ list: [StoreInspector.DeletePreview.Rows]) -> [DeletePreviewAnswer.Rows] {
      list.map {
        DeletePreviewAnswer.Rows(
          model: $0.model, property: $0.property, deleteRule: $0.deleteRule,
          keys: $0.keys.map(RowCursor.keyToken), shown: $0.keys.map(Self.shown))
      }
    }
    return .json(
      DeletePreviewAnswer(
        summary: Self.summary(of: preview, model: model.name, key: Self.shown(key)),
        deleted: rows(preview.deleted), nullified: rows(preview.nullified),
        refusals: rows(preview.refusals), truncated: preview.isTruncated))
  }

  /// "Deleting Trip 1 also deletes 3 Activity rows (1, 2, 3). …"
  static func summary(of preview: StoreInspector.DeletePreview, model: String, key: String)
    -> String
  {
    func list(_ rows: StoreInspector.DeletePreview.Rows) -> String {
      let shown = rows.keys.prefix(10).map(shown).joined(separator: ", ")
      return "\(rows.keys.count) \(rows.model) \(rows.keys.count == 1 ? "row" : "rows") (\(shown)"
        + (rows.keys.count > 10 ? ", …)" : ")")
    }
    var sentences: [String] = []
    if preview.deleted.isEmpty {
      sentences.append("Deleting \(model) \(key) deletes no other row.")
    } else {
      sentences.append(
        "Deleting \(model) \(key) also deletes "
          + preview.deleted.map { list($0) + " through `\($0.property)` (.cascade)" }
          .joined(separator: ", ") + ".")
    }
    for rows in preview.nullified {
      sentences.append("It sets `\(rows.property)` to nil on \(list(rows)) (.nullify).")
    }
    if !preview.refusals.isEmpty {
      sentences.append(
        "It would be refused: "
          + preview.refusals.map {
            list($0) + ($0.keys.count == 1 ? " refers" : " refer")
              + " to it through `\($0.property)` (.deny)"
          }
          .joined(separator: "; ") + ".")
    }
    if preview.isTruncated {
      sentences.append(
        "(Stopped after \(StoreInspector.deletePreviewLimit) rows: there are more.)")
    }
    return sentences.joined(separator: " ")
  }
}
