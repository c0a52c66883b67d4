import Foundation
import Kura
import KuraPostgreSQL
import KuraSyncServer

// `kura studio --write`: a batch of inserts, edits and deletes from the page, previewed (what
// each does, the delete rules' cascades and refusals, values that don't fit) and then saved at
// once through the store's save path (`ModelContainer.saveEdits`). A read-only studio answers
// every change with a refusal.

extension Studio {
  /// The body of `POST /api/edits`: the batch, and whether to preview it only.
  struct EditBatch: Decodable {
    struct Edit: Decodable {
      var action: RowEdit.Action
      var model: String
      /// The row's key as the rows page gives it (update, delete).
      var key: String?
      /// The properties set, as text; JSON `null` sets `nil`.
      var values: [String: String?]?
    }
    var edits: [Edit]
    var preview: Bool?
  }

  struct EditPreviewAnswer: Encodable {
    struct Line: Encodable {
      var edit: Int
      var action: String
      var model: String
      var summary: String
      /// A `.deny` rule refuses this delete.
      var refused: Bool
    }
    var lines: [Line]
    var errors: [EditErrorAnswer]
    var refused: Bool
  }

  struct EditErrorAnswer: Encodable {
    var error: String
    var edit: Int?
    var model: String?
    var property: String?
  }

  struct EditSavedAnswer: Encodable {
    var saved: Bool
    var token: Int64
    var changes: [String: ChangeSet.ModelChanges]
    var inserted: [String]
  }

  /// `POST /api/edits`: previews (`"preview": true`) or saves a batch.
  func edits(_ request: StudioRequest) throws -> StudioResponse {
    guard let editor else {
      return .error(
        403,
        "This studio is read-only: it opened the store read-only and writes nothing. Start it "
          + "with `kura studio --write` to change rows.")
    }
    let batch: EditBatch
    do {
      batch = try JSONDecoder().decode(EditBatch.self, from: request.body)
    } catch {
      throw StudioRequestError(
        message:
          "The batch is not readable: give {\"edits\": [{\"action\": \"insert\"|\"update\"|"
          + "\"delete\", \"model\": …, \"key\": …, \"values\": {…}}], \"preview\": true|false}.")
    }
    guard batch.edits.count <= 1_000 else {
      throw StudioRequestError(message: "A batch holds at most 1,000 edits.")
    }
    var edits: [RowEdit] = []
    for (position, edit) in batch.edits.enumerated() {
      var key: DatabaseValue?
      if let token = edit.key {
        guard let value = RowCursor.keyValue(token: Substring(token)) else {
          return .json(
            EditErrorAnswer(
              error: "Edit \(position + 1): `key` is not a key the rows page gave.",
              edit: position, model: edit.model, property: nil), status: 400)
        }
        key = value
      }
      edits.append(
        RowEdit(action: edit.action, model: edit.model, key: key, values: edit.values ?? [:]))
    }
    let inspector = try inspector()
    let models = try inspector.browsedModels(counting: false)
    if batch.preview ?? false {
      return .json(try preview(edits, inspector: inspector, models: models))
    }
    do {
      let outcome = try editor.saveEdits(edits, models: models)
      return .json(
        EditSavedAnswer(
          saved: true, token: outcome.changeSet.token.rawValue,
          changes: outcome.changeSet.changes, inserted: outcome.insertedKeys.map(Self.shown)))
    } catch let error as RowEditError {
      return .json(
        EditErrorAnswer(
          error: error.message, edit: error.edit, model: error.model, property: error.property),
        status: 409)
    }
  }

  /// What each edit of a batch would do, and the values that don't fit (nothing is written).
  func preview(_ edits: [RowEdit], inspector: StoreInspector, models: [BrowsedModel]) throws
    -> EditPreviewAnswer
  {
    var lines: [EditPreviewAnswer.Line] = []
    var errors: [EditErrorAnswer] = []
    // The rows the batch deletes, with its cascades: a `.deny` from one of them doesn't refuse.
    var previews: [Int: StoreInspector.DeletePreview] = [:]
    var deleted: Set<String> = []
    for (position, edit) in edits.enumerated() where edit.action == .delete {
      guard let key = edit.key, let model = models.first(where: { $0.name == edit.model }) else {
        continue
      }
      let preview = try inspector.deletePreview(of: model, key: key, among: models)
      previews[position] = preview
      deleted.insert("\(model.name)\u{0}\(key)")
      for rows in preview.deleted {
        for found in rows.keys { deleted.insert("\(rows.model)\u{0}\(found)") }
      }
    }
    for (position, edit) in edits.enumerated() {
      guard let model = models.first(where: { $0.name == edit.model }) else {
        errors.append(
          EditErrorAnswer(
            error: "The store has no model `\(edit.model)`.", edit: position, model: edit.model))
        continue
      }
      for (name, text) in edit.values.sorted(by: { $0.key < $1.key }) {
        guard let column = model.columns.first(where: { $0.name == name }) else {
          errors.append(
            EditErrorAnswer(
              error: "`\(model.name)` has no property `\(name)`.", edit: position,
              model: model.name, property: name))
          continue
        }
        do {
          _ = try column.storedValue(text, model: model.name)
        } catch let error as RowEditError {
          errors.append(
            EditErrorAnswer(
              error: error.message, edit: position, model: model.name, property: name))
        }
      }
      let values = edit.values.sorted(by: { $0.key < $1.key }).map { name, text in
        "\(name) = " + (text.map { "\"\($0)\"" } ?? "nil")
      }.joined(separator: ", ")
      let key = edit.key.map(Self.shown) ?? ""
      switch edit.action {
      case .insert:
        lines.append(
          .init(
            edit: position, action: "insert", model: model.name,
            summary: "Inserts a \(model.name) row: \(values).", refused: false))
      case .update:
        lines.append(
          .init(
            edit: position, action: "update", model: model.name,
            summary: "Sets \(values) on \(model.name) \(key).", refused: false))
      case .delete:
        guard let preview = previews[position] else { continue }
        let blocking = preview.refusals.flatMap { rows in
          rows.keys.filter { !deleted.contains("\(rows.model)\u{0}\($0)") }
        }
        var summary = Self.summary(of: preview, model: model.name, key: key)
        if !preview.refusals.isEmpty && blocking.isEmpty {
          summary += " This batch deletes those rows too, so the delete goes ahead."
        }
        lines.append(
          .init(
            edit: position, action: "delete", model: model.name, summary: summary,
            refused: !blocking.isEmpty))
      }
    }
    return EditPreviewAnswer(
      lines: lines, errors: errors, refused: lines.contains(where: \.refused))
  }
}
