import Foundation
import KuraBase
import KuraPostgreSQL
import KuraStore
import KuraSyncCore

/// A space's catalogue: the models its devices declared (``SyncModelDeclaration``), merged under
/// the version rule, which the server checks every pushed change against.
///
/// The version rule, for a model the catalogue holds and a device declares again:
/// - the id's kind, and each known property's kind, optionality, reference target and delete
///   rule, stay as they are;
/// - a property the catalogue lacks joins it when it is optional or has a default (a newer app
///   version); a new required property without a default is refused;
/// - a required property the declaration lacks is refused (that version's new models would lack
///   it); an optional one it lacks is an older app version's declaration, and is fine;
/// - the unique attributes are the model's first declaration's: adding or dropping one later is
///   refused (the values held twice already could not be arbitrated after the fact).
///
/// A model the catalogue lacks joins it whole.
package struct SyncCatalog: Sendable, Hashable {
  /// The models by stored name.
  package var models: [String: SyncModelDeclaration] = [:]

  /// Why a declaration or a change is refused: the model and property it concerns, and a
  /// sentence for people.
  package struct Refusal: Error, Sendable, Hashable {
    package var model: String
    package var property: String?
    package var message: String
  }

  /// The most incarnations an id may have: far more re-inserts of one id than any app makes, and
  /// far enough from `Int64.max` that a replica's next incarnation can't overflow.
  package static let maximumIncarnation: Int64 = 1 << 32

  /// The kinds a declaration may name.
  package static let kinds: Set<String> = Set(
    ["integer", "real", "text", "blob", "bool", "date", "uuid", "url", "json"])
  /// The delete rules a declaration may name.
  package static let rules: Set<String> = ["cascade", "nullify", "deny", "noAction"]

  // MARK: Learning declarations

  /// Merges the declarations of a push into the catalogue under the version rule.
  ///
  /// - Returns: The models whose entry changed (to store).
  /// - Throws: ``Refusal`` for a declaration that is malformed or contradicts the catalogue.
  package mutating func learn(_ declarations: [SyncModelDeclaration]) throws
    -> [SyncModelDeclaration]
  {
    var changed: [String: SyncModelDeclaration] = [:]
    var seen: Set<String> = []
    for raw in declarations {
      let declared = raw.normalized
      guard seen.insert(declared.model).inserted else {
        throw Refusal(
          model: declared.model, property: nil,
          message: "The push declares model `\(declared.model)` twice: declare each model once.")
      }
      try Self.checkShape(declared)
      guard let known = models[declared.model] else {
        models[declared.model] = declared
        changed[declared.model] = declared
        continue
      }
      let merged = try Self.merge(declared, into: known)
      if merged != known {
        models[declared.model] = merged
        changed[declared.model] = merged
      }
    }
    for declared in declarations {
      for property in declared.properties {
        guard let target = property.target else { continue }
        guard models[target] != nil else {
          throw Refusal(
            model: declared.model, property: property.name,
            message:
              "`\(declared.model).\(property.name)` refers to model `\(target)`, which the push "
              + "doesn't declare and the space's catalogue doesn't hold: declare `\(target)`.")
        }
      }
    }
    return changed.values.sorted { $0.model < $1.model }
  }

  /// Checks a declaration on its own: names present, kinds and rules known, unique attributes
  /// made of declared properties.
  private static func checkShape(_ declared: SyncModelDeclaration) throws {
    let model = declared.model
    guard !model.isEmpty, model.utf8.count <= 200 else {
      throw Refusal(
        model: String(model.prefix(200)), property: nil,
        message: "A declared model's name is empty or longer than 200 bytes.")
    }
    guard kinds.contains(declared.id) else {
      throw Refusal(
        model: model, property: nil,
        message:
          "Model `\(model)` declares its id of kind `\(declared.id.prefix(40))`, which is not one "
          + "of \(kinds.sorted().joined(separator: ", ")).")
    }
    var names: Set<String> = []
    for property in declared.properties {
      guard !property.name.isEmpty, property.name.utf8.count <= 200,
        names.insert(property.name).inserted
      else {
        throw Refusal(
          model: model, property: String(property.name.prefix(200)),
          message:
            "Model `\(model)` declares property `\(property.name.prefix(200))` twice, or with an "
            + "empty or over-long name.")
      }
      guard kinds.contains(property.kind) else {
        throw Refusal(
          model: model, property: property.name,
          message:
            "`\(model).\(property.name)` is declared of kind `\(property.kind.prefix(40))`, which "
            + "is not one of \(kinds.sorted().joined(separator: ", ")).")
      }
      if property.target != nil || property.rule != nil {
        guard let target = property.target, !target.isEmpty, let rule = property.rule,
          rules.contains(rule)
        else {
          throw Refusal(
            model: model, property: property.name,
            message:
              "`\(model).\(property.name)` is declared a reference without a target model or "
              + "with a delete rule that is not one of \(rules.sorted().joined(separator: ", ")).")
        }
      }
    }
    for attribute in declared.unique ?? [] {
      for name in attribute where !names.contains(name) {
        throw Refusal(
          model: model, property: name,
          message:
            "Model `\(model)` declares `\(name.prefix(200))` unique, but no property of that name.")
      }
    }
  }

  /// The catalogue's entry for a model after a device declared it again (see the version rule).
  private static func merge(_ declared: SyncModelDeclaration, into known: SyncModelDeclaration)
    throws -> SyncModelDeclaration
  {
    let model = known.model
    guard declared.id == known.id else {
      throw Refusal(
        model: model, property: nil,
        message:
          "Model `\(model)` is declared with an id of kind `\(declared.id)`, but the space's "
          + "catalogue holds it with an id of kind `\(known.id)`: an app version can't change "
          + "the kind of a model's id. Nothing was applied.")
    }
    var merged = known
    for property in declared.properties {
      guard let existing = known.property(property.name) else {
        guard !property.isRequired else {
          throw Refusal(
            model: model, property: property.name,
            message:
              "`\(model).\(property.name)` is new to the space and required without a default: "
              + "the replicas of older app versions would make `\(model)`s without it. Make it "
              + "optional or declare `.defaultValue(\\.\(property.name), …)`. Nothing was applied.")
        }
        merged.properties.append(property)
        continue
      }
      if existing.kind != property.kind {
        throw Refusal(
          model: model, property: property.name,
          message:
            "`\(model).\(property.name)` is declared of kind `\(property.kind)`, but the space's "
            + "catalogue holds it of kind `\(existing.kind)`: an app version can't change a "
            + "property's kind; add a property of another name instead. Nothing was applied.")
      }
      if existing.optional != property.optional {
        throw Refusal(
          model: model, property: property.name,
          message:
            "`\(model).\(property.name)` is declared \(property.optional ? "optional" : "required"), "
            + "but the space's catalogue holds it \(existing.optional ? "optional" : "required"): "
            + "the replicas of the other app versions couldn't store what this one sends. "
            + "Nothing was applied.")
      }
      if existing.target != property.target || existing.rule != property.rule {
        throw Refusal(
          model: model, property: property.name,
          message:
            "`\(model).\(property.name)` is declared \(Self.describeReference(property)), but the "
            + "space's catalogue holds it \(Self.describeReference(existing)): an app version "
            + "can't change what a property refers to or its delete rule. Nothing was applied.")
      }
    }
    for existing in known.properties
    where existing.isRequired && declared.property(existing.name) == nil {
      throw Refusal(
        model: model, property: existing.name,
        message:
          "Model `\(model)` is declared without `\(existing.name)`, which the space's catalogue "
          + "holds as required: this app version's new `\(model)`s would lack it on every other "
          + "replica. Keep the property (it may get a default). Nothing was applied.")
    }
    if (declared.unique ?? []) != (known.unique ?? []) {
      let names = { (attributes: [[String]]?) -> String in
        let list = (attributes ?? []).map { "(\($0.joined(separator: ", ")))" }
        return list.isEmpty ? "none" : list.joined(separator: ", ")
      }
      throw Refusal(
        model: model, property: (declared.unique ?? known.unique ?? []).first?.first,
        message:
          "Model `\(model)` is declared with unique attributes \(names(declared.unique)), but the "
          + "space's catalogue holds \(names(known.unique)): unique attributes are fixed when a "
          + "model first syncs (values held twice already could not be arbitrated). Nothing was "
          + "applied.")
    }
    return merged.normalized
  }

  private static func describeReference(_ property: SyncModelDeclaration.Property) -> String {
    guard let target = property.target else { return "not a reference" }
    return "a reference to `\(target)` (delete rule `\(property.rule ?? "")`)"
  }

  // MARK: Checking changes

  /// Checks one pushed change against the catalogue (for a model it holds): the incarnation in
  /// range, the id of the model's id kind, the property known, the value of its kind, `null`
  /// only where optional, dates finite, and a reference of its target's id form.
  ///
  /// - Throws: ``Refusal`` naming the model and the property.
  package func check(_ change: SyncChange, save: Int64) throws {
    let subject = "Save \(save)'s change of `\(change.model)` `\(change.id.prefix(100))`"
    guard change.incarnation <= Self.maximumIncarnation else {
      throw Refusal(
        model: change.model, property: change.property,
        message:
          "\(subject) has incarnation \(change.incarnation), past the most an id can have "
          + "(\(Self.maximumIncarnation)). Nothing was applied.")
    }
    guard !models.isEmpty else { return }
    guard let declaration = models[change.model] else {
      throw Refusal(
        model: change.model, property: change.property,
        message:
          "\(subject)\(change.property.map { " sets `\($0.prefix(200))`, but" } ?? ":") the "
          + "space's catalogue has no model `\(change.model)`. A device declares its models in "
          + "its push; nothing was applied.")
    }
    guard Self.idFits(change.id, kind: declaration.id) else {
      throw Refusal(
        model: change.model, property: "id",
        message:
          "\(subject): its `id` is not of the model's id kind `\(declaration.id)`. Nothing was "
          + "applied.")
    }
    guard !change.deleted, let name = change.property else { return }
    guard let property = declaration.property(name) else {
      throw Refusal(
        model: change.model, property: name,
        message:
          "\(subject) sets `\(name.prefix(200))`, which the space's catalogue doesn't hold for "
          + "`\(change.model)`. A newer app version declares its new properties in its push; "
          + "nothing was applied.")
    }
    let value = change.value ?? .null
    if value == .null {
      guard property.optional else {
        throw Refusal(
          model: change.model, property: name,
          message:
            "\(subject) sets `\(name)` to null, but `\(change.model).\(name)` is required. "
            + "Nothing was applied.")
      }
      return
    }
    if let target = property.target, let targetModel = models[target] {
      guard Self.referenceFits(value, idKind: targetModel.id) else {
        throw Refusal(
          model: change.model, property: name,
          message:
            "\(subject) sets `\(name)` to a value that is not an id of `\(target)` (of kind "
            + "`\(targetModel.id)`). Nothing was applied.")
      }
      return
    }
    if let reason = Self.misfit(value, kind: property.kind) {
      throw Refusal(
        model: change.model, property: name,
        message:
          "\(subject) sets `\(name)` (of kind `\(property.kind)`) to \(reason). Nothing was "
          + "applied.")
    }
  }

  /// Why a value doesn't fit a kind, or `nil` when it does.
  package static func misfit(_ value: DatabaseValue, kind: String) -> String? {
    switch (kind, value) {
    case ("integer", .integer): return nil
    case ("bool", .integer(let integer)):
      return integer == 0 || integer == 1 ? nil : "an integer other than 0 and 1"
    case ("real", .integer): return nil
    case ("real", .real(let real)):
      // SQLite stores a NaN REAL as NULL; a replica sends a NaN as its exact BLOB (below).
      return real.isNaN ? "a NaN that is not in its exact form" : nil
    case ("real", .blob(let data)):
      return Double(exactSQLiteBlob: data) == nil ? "a blob that is not a number's exact form" : nil
    case ("date", .integer): return nil
    case ("date", .real(let real)): return real.isFinite ? nil : "a date that is not finite"
    case ("date", .blob(let data)):
      guard let seconds = Double(exactSQLiteBlob: data) else {
        return "a blob that is not a date's exact form"
      }
      return seconds.isFinite ? nil : "a date that is not finite"
    case ("text", .text), ("url", .text), ("json", .text): return nil
    case ("uuid", .text(let text)):
      return UUID(uuidString: text) == nil ? "text that is not a UUID" : nil
    case ("blob", .blob): return nil
    default: return "a value of another kind (\(value.kindName))"
    }
  }

  /// Whether an id's text is of an id kind (as a replica reads it back: see
  /// `SyncLocalStore.keyValue`).
  package static func idFits(_ id: String, kind: String) -> Bool {
    switch kind {
    case "integer", "bool": return Int64(id) != nil
    case "real", "date": return Double(id)?.isFinite ?? false
    case "blob": return Data(base64Encoded: id) != nil
    case "uuid": return UUID(uuidString: id) != nil
    default: return true
    }
  }

  /// Whether a reference's value is of the form of its target's ids.
  package static func referenceFits(_ value: DatabaseValue, idKind: String) -> Bool {
    switch (idKind, value) {
    case ("integer", .integer), ("bool", .integer), ("blob", .blob): return true
    case ("real", .real(let real)), ("date", .real(let real)): return real.isFinite
    case ("uuid", .text(let text)): return UUID(uuidString: text) != nil
    case ("text", .text), ("url", .text), ("json", .text): return true
    default: return false
    }
  }

  // MARK: Arbitration

  /// The save with the unique attributes and `.deny` references of its models taken from the
  /// catalogue where it holds them (a push's own are kept only for models it doesn't hold).
  package func arbitrated(_ save: SyncSave) -> SyncSave {
    guard !models.isEmpty else { return save }
    var save = save
    let touched = Set(save.changes.map(\.model))
    var unique = (save.unique ?? []).filter { models[$0.model] == nil }
    var deny = (save.deny ?? []).filter { models[$0.model] == nil }
    for model in touched.sorted() {
      guard let declaration = models[model] else { continue }
      for attribute in declaration.unique ?? [] {
        unique.append(SyncUniqueConstraint(model: model, properties: attribute))
      }
      for property in declaration.properties where property.rule == "deny" {
        guard let target = property.target else { continue }
        deny.append(SyncDenyReference(model: model, property: property.name, target: target))
      }
    }
    save.unique = unique.isEmpty ? nil : unique
    save.deny = deny.isEmpty ? nil : deny
    return save
  }
}

extension DatabaseValue {
  /// The value's kind as its wire form names it.
  package var kindName: String {
    switch self {
    case .null: return "null"
    case .integer: return "integer"
    case .real: return "real"
    case .text: return "text"
    case .blob: return "blob"
    }
  }
}
