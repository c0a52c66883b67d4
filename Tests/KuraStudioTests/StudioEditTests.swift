import Foundation
import Kura
import KuraEngineTestSupport
import KuraPostgreSQL
import KuraStudio
import KuraTestSupport
import Testing

/// `kura studio --write`: batches of edits previewed, then saved through the store's save path
/// (delete rules, references, required values), or refused naming the field with nothing
/// written.
@Suite("Studio edits")
struct StudioEditTests {
  func writableStudio(_ url: URL) throws -> Studio {
    let studio = try Studio(
      store: .url(url), storeName: "trips.store", secret: "s3cret", writable: true)
    studio.port = 4_321
    return studio
  }

  /// Posts a batch (`preview` or save); the status and the answer's JSON.
  func post(
    _ studio: Studio, _ edits: [[String: Any]], preview: Bool = false,
    secretHeader: String? = "s3cret"
  )
    throws -> (Int, [String: Any])
  {
    var headers = ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"]
    if let secretHeader { headers["X-Kura-Secret"] = secretHeader }
    let body = try JSONSerialization.data(withJSONObject: ["edits": edits, "preview": preview])
    let response = studio.respond(
      to: StudioRequest(method: "POST", path: "/api/edits", headers: headers, body: body))
    let json =
      (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any])
      ?? ["text": String(decoding: response.body, as: UTF8.self)]
    return (response.status, json)
  }

  func context(_ url: URL) throws -> ModelContext {
    ModelContext(try ModelContainer(for: studioModels, configurations: .url(url)))
  }

  @Test func anEditIsSavedAndRecordedInTheHistory() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let studio = try writableStudio(url)
    let page = String(
      decoding: studio.respond(
        to: StudioRequest(
          method: "GET", path: "/",
          headers: ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"])
      ).body, as: UTF8.self)
    #expect(page.contains(#"<meta name="kura-write-secret" content="s3cret">"#))
    let before = try context(url).container.currentHistoryToken()
    let (status, answer) = try post(
      studio,
      [
        [
          "action": "update", "model": "Trip", "key": "i2",
          "values": [
            "name": "Nara <b>park</b>", "start": "2027-01-02T03:04:05.250Z", "budget": "99.5",
            "notes": NSNull(),
          ],
        ]
      ])
    #expect(status == 200, "\(answer)")
    let nara = try #require(try context(url).model(for: 2, as: Trip.self))
    #expect(nara.name == "Nara <b>park</b>")
    #expect(nara.start == ISO8601DateFormatter.withFraction.date(from: "2027-01-02T03:04:05.250Z"))
    #expect(nara.budget == 99.5)
    #expect(nara.notes == nil)
    let changeSets = try context(url).container.history(since: before)
    #expect(changeSets.count == 1)
    #expect(changeSets.first?.changes["Trip"]?.updated == ["2"])
  }

  @Test func aMalformedDateNamesTheFieldAndNothingIsWritten() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let studio = try writableStudio(url)
    let before = try context(url).container.currentHistoryToken()
    let edits: [[String: Any]] = [
      ["action": "update", "model": "Trip", "key": "i1", "values": ["name": "Kyoto 2"]],
      ["action": "update", "model": "Trip", "key": "i2", "values": ["start": "next tuesday"]],
    ]
    let (previewStatus, preview) = try post(studio, edits, preview: true)
    #expect(previewStatus == 200)
    let errors = try #require(preview["errors"] as? [[String: Any]])
    #expect(errors.count == 1)
    #expect(errors.first?["property"] as? String == "start")
    #expect(errors.first?["edit"] as? Int == 1)
    let (status, answer) = try post(studio, edits)
    #expect(status == 409)
    #expect(answer["property"] as? String == "start")
    #expect(
      answer["error"] as? String
        == "`Trip.start` is a date: `next tuesday` is not one. Give it in ISO 8601, such as "
        + "2026-12-06T09:30:00Z or 2026-12-06T09:30:00.250+09:00. Nothing was saved.")
    // Nothing of the batch: Kyoto keeps its name, no change set.
    #expect(try context(url).model(for: 1, as: Trip.self)?.name == "Kyoto")
    #expect(try context(url).container.currentHistoryToken() == before)
  }

  @Test func deletingPreviewsTheCascadeAndDenyRefusesUntilTheBookingGoesToo() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let studio = try writableStudio(url)
    let kyoto: [[String: Any]] = [["action": "delete", "model": "Trip", "key": "i1"]]
    let (_, preview) = try post(studio, kyoto, preview: true)
    #expect(preview["refused"] as? Bool == true)
    let lines = try #require(preview["lines"] as? [[String: Any]])
    #expect(
      lines.first?["summary"] as? String
        == "Deleting Trip 1 also deletes 3 Activity rows (1, 2, 3) through `trip` (.cascade). "
        + "It would be refused: 1 Booking row (ryokan) refers to it through `trip` (.deny).")
    let (status, refusal) = try post(studio, kyoto)
    #expect(status == 409)
    #expect((refusal["error"] as? String)?.contains("`.deny`") == true)
    #expect(try context(url).fetchCount(FetchDescriptor<Activity>()) == 4)
    // With its booking in the same batch, Kyoto goes, and the cascade takes its activities.
    let (saved, answer) = try post(
      studio,
      [
        [
          "action": "delete", "model": "Booking",
          "key": "t" + Data("ryokan".utf8).base64EncodedString(),
        ]
      ] + kyoto)
    #expect(saved == 200, "\(answer)")
    let after = try context(url)
    #expect(try after.model(for: 1, as: Trip.self) == nil)
    #expect(try after.fetch(FetchDescriptor<Activity>()).map(\.id) == [4])
    let changes = try #require(answer["changes"] as? [String: Any])
    #expect(Set(changes.keys) == ["Activity", "Booking", "Trip"])
  }

  @Test func deletingPreviewsAndSavesTheNullifiedReferences() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let models = studioModels + [Souvenir.self]
    let seeding = ModelContext(try ModelContainer(for: models, configurations: .url(url)))
    for (id, name, trip) in [(1, "Fan", 2), (2, "Deer cracker", 2), (3, "Tea bowl", 1)] {
      try seeding.insert(Souvenir(id: id, name: name, trip: trip))
    }
    try seeding.save()
    let studio = try writableStudio(url)
    func souvenirTrip(_ id: Int) throws -> [String: Any] {
      let response = studio.respond(
        to: StudioRequest(
          method: "GET", path: "/api/row", query: ["model": "Souvenir", "key": "i\(id)"],
          headers: ["Host": "127.0.0.1:4321", "Cookie": "kura_studio_4321=s3cret"]))
      let answer = try #require(
        try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
      let columns = try #require(answer["columns"] as? [[String: Any]])
      let cells = try #require(answer["cells"] as? [[String: Any]])
      let index = try #require(columns.firstIndex { $0["name"] as? String == "trip" })
      return cells[index]
    }
    #expect(try souvenirTrip(1)["int"] as? String == "2")
    // Nara: its activity goes with it, its souvenirs stay with no trip.
    let nara: [[String: Any]] = [["action": "delete", "model": "Trip", "key": "i2"]]
    let (previewStatus, preview) = try post(studio, nara, preview: true)
    #expect(previewStatus == 200, "\(preview)")
    #expect(preview["refused"] as? Bool != true)
    let lines = try #require(preview["lines"] as? [[String: Any]])
    #expect(
      lines.first?["summary"] as? String
        == "Deleting Trip 2 also deletes 1 Activity row (4) through `trip` (.cascade). "
        + "It sets `trip` to nil on 2 Souvenir rows (1, 2) (.nullify).")
    #expect(try context(url).model(for: 2, as: Trip.self) != nil)
    let (status, answer) = try post(studio, nara)
    #expect(status == 200, "\(answer)")
    let after = ModelContext(try ModelContainer(for: models, configurations: .url(url)))
    #expect(try after.model(for: 2, as: Trip.self) == nil)
    #expect(
      try after.fetch(FetchDescriptor<Souvenir>()).map {
        [$0.name, $0.trip.map(String.init) ?? "nil"]
      }
        == [["Fan", "nil"], ["Deer cracker", "nil"], ["Tea bowl", "1"]])
    let changes = try #require(answer["changes"] as? [String: Any])
    #expect(Set(changes.keys) == ["Activity", "Souvenir", "Trip"])
    // The page shows the cleared reference as nil, and the one left alone as it was.
    #expect(try souvenirTrip(1)["nil"] as? Bool == true)
    #expect(try souvenirTrip(2)["nil"] as? Bool == true)
    #expect(try souvenirTrip(3)["int"] as? String == "1")
  }

  @Test func insertsNeedRequiredValuesAndReferencesThatExist() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let studio = try writableStudio(url)
    let (missing, missingAnswer) = try post(
      studio, [["action": "insert", "model": "Activity", "values": ["name": "Walk"]]])
    #expect(missing == 409)
    #expect(missingAnswer["property"] as? String == "trip")
    let (dangling, danglingAnswer) = try post(
      studio,
      [["action": "insert", "model": "Activity", "values": ["name": "Walk", "trip": "77"]]])
    #expect(dangling == 409)
    #expect(
      danglingAnswer["error"] as? String
        == "`Activity.trip` refers to `Trip` 77, which does not exist. Nothing was saved.")
    let (status, answer) = try post(
      studio,
      [["action": "insert", "model": "Activity", "values": ["name": "Walk", "trip": "2"]]])
    #expect(status == 200, "\(answer)")
    #expect(answer["inserted"] as? [String] == ["5"])
    #expect(
      try context(url).model(for: 5, as: Activity.self) == Activity(id: 5, name: "Walk", trip: 2))
    // A key taken already.
    let (taken, takenAnswer) = try post(
      studio,
      [
        [
          "action": "insert", "model": "Activity",
          "values": ["id": "5", "name": "Again", "trip": "2"],
        ]
      ])
    #expect(taken == 409)
    #expect(takenAnswer["property"] as? String == "id")
  }

  /// A guide's email is unique.
  struct Guide: PersistentModel, Equatable {
    var id: Int
    var email: String
    var name: String
    static var schema: Schema<Guide> { Schema(.unique(\.email)) }
  }

  @Test func aTakenUniqueValueNamesThePropertyAndNothingIsWritten() throws {
    let folder = StudioFolder()
    let url = folder.file("guides.store")
    let container = try ModelContainer(for: [Guide.self], configurations: .url(url))
    let context = ModelContext(container)
    try context.insert(Guide(id: 1, email: "aiko@example.com", name: "Aiko"))
    try context.insert(Guide(id: 2, email: "ren@example.com", name: "Ren"))
    try context.save()
    let studio = try writableStudio(url)
    let (status, answer) = try post(
      studio,
      [
        ["action": "update", "model": "Guide", "key": "i1", "values": ["name": "Aiko S."]],
        [
          "action": "update", "model": "Guide", "key": "i2",
          "values": ["email": "aiko@example.com"],
        ],
      ])
    #expect(status == 409)
    #expect(answer["property"] as? String == "email")
    #expect(answer["edit"] as? Int == 1)
    #expect(
      answer["error"] as? String
        == "`Guide` 1 already holds this `email`: it is unique. Nothing was saved.")
    let after = ModelContext(try ModelContainer(for: [Guide.self], configurations: .url(url)))
    #expect(try after.model(for: 1, as: Guide.self)?.name == "Aiko")
    // An insert with a free value goes in; its own value again is no collision on update.
    let (saved, savedAnswer) = try post(
      studio,
      [
        [
          "action": "insert", "model": "Guide",
          "values": ["email": "mei@example.com", "name": "Mei"],
        ],
        [
          "action": "update", "model": "Guide", "key": "i2", "values": ["email": "ren@example.com"],
        ],
      ])
    #expect(saved == 200, "\(savedAnswer)")
    #expect(try after.model(for: 3, as: Guide.self)?.email == "mei@example.com")
    // Text is unique as Swift's `==` compares it: "e" and a combining accent is "é".
    try context.insert(Guide(id: 4, email: "café@example.com", name: "Café"))
    try context.save()
    let (equivalent, equivalentAnswer) = try post(
      studio,
      [
        [
          "action": "update", "model": "Guide", "key": "i3",
          "values": ["email": "cafe\u{301}@example.com"],
        ]
      ])
    #expect(equivalent == 409)
    #expect(equivalentAnswer["property"] as? String == "email")
  }

  @Test func writesNeedTheSecretInTheHeader() throws {
    let folder = StudioFolder()
    let url = try seededStore(folder)
    let studio = try writableStudio(url)
    let edit: [[String: Any]] = [["action": "delete", "model": "Trip", "key": "i2"]]
    // The cookie alone (which a form of another site could send) is not enough.
    #expect(try post(studio, edit, secretHeader: nil).0 == 403)
    #expect(try post(studio, edit, secretHeader: "wrong").0 == 403)
    #expect(try context(url).model(for: 2, as: Trip.self) != nil)
  }
}

extension ISO8601DateFormatter {
  static var withFraction: ISO8601DateFormatter {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter
  }
}
