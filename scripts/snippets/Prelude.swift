// What the documentation's Swift snippets assume without showing it: the models and values an
// earlier block (or the surrounding text) introduced. `scripts/check-snippets` compiles this file
// as a module that every snippet imports; a snippet's own declarations shadow these. Values are
// never created: snippets are type-checked, not run.
import Foundation
import Kura

/// Stands for a value the text has at hand.
public func given<Value>() -> Value { fatalError("snippets are type-checked, never run") }

public struct Student: PersistentModel {
  public var id = UUID()
  public var student: String
  public var added = Date()
  public static var schema: Schema<Student> { Schema(.index(\.added)) }
}

public struct Trip: PersistentModel {
  public var id = UUID()
  public var name: String
  public var notes: String?
  public var startDate = Date()
  public var createdAt = Date()
  public static var schema: Schema<Trip> { Schema(.searchable(\.name, \.notes)) }
}

public struct Activity: PersistentModel {
  public var id = UUID()
  public var name: String
  public var isComplete = false
  public var trip: Trip.ID
  public static var schema: Schema<Activity> {
    Schema(.reference(\.trip, to: Trip.self, deleteRule: .cascade), .index(\.trip))
  }
}

public struct Counter: PersistentModel {
  public var id: String
  public var value: Int
  public init(id: String, value: Int) {
    self.id = id
    self.value = value
  }
}

public struct CashData: Codable, Identifiable, Sendable {
  public var id = UUID()
  public var memo: String
  public var cash: Int
  public var time: String
}

public enum SortOption: String, Codable, Sendable { case title, date, completion }

extension Preferences.Key {
  public static var sortOption: Preferences.Key<SortOption> { .init("sortOption", default: .title) }
  public static var launchCount: Preferences.Key<Int> { .init("launchCount", default: 0) }
}

public var container: ModelContainer { given() }
public var context: ModelContext { given() }
public var trip: Trip { given() }
public var kyoto: Trip { given() }
public var student: Student { given() }
public var other: Student { given() }
public var token: HistoryToken { given() }
public var cutoff: Date { given() }
public var descriptor: FetchDescriptor<Student> { given() }
public var store: DocumentStore<[CashData]> { given() }
public func handle(_ changeSet: ChangeSet) {}
public var preferences: Preferences { given() }
public var db: Connection { given() }

extension Preferences.Key {
  public static var menu: Preferences.Key<String> { .init("menu", default: "") }
}
public var recent: LiveQuery<Trip> { given() }
/// Stand for an app's drawing code.
public func render<Value>(_ value: Value) {}
public func scheduleRender() {}
