import Foundation
import Kura
import KuraCLI
import KuraStoreCLI

// `students`: the seed's Core Data "students" app on Kura's model store.

let add = Command(
  name: "add",
  abstract: "Adds a student: a random name from the seed's lists, or the one given.",
  options: [
    Option("name", help: "The student's full name, such as \"Luna Lovegood\"."),
    StudentStore.option,
  ],
  supportsJSON: true,
  run: { invocation in
    var name = Student.randomName()
    if let given: String = try invocation.option("name") {
      name = given.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !name.isEmpty else {
        throw UsageError(
          "`\(given)` is not a valid value for --name: give a name with at least one letter.",
          command: invocation.commandPath)
      }
    }
    let context = try StudentStore.context(invocation)
    let student = Student(student: name)
    try context.insert(student)
    try context.save()
    if invocation.json { return try invocation.printJSON(student) }
    print("Added \(visible(student.student)).")
  })

let deleteLast = Command(
  name: "delete-last",
  abstract: "Deletes the most recently added student.",
  options: [StudentStore.option],
  supportsJSON: true,
  run: { invocation in
    let context = try StudentStore.context(invocation)
    let newest = try context.fetch(
      FetchDescriptor<Student>(sortBy: [SortDescriptor(\.added, order: .reverse)], fetchLimit: 1))
    guard let student = newest.first else {
      throw StudentsError(
        "There is no student to delete: the list is empty. Add one with `students add`.")
    }
    try context.delete(student)
    try context.save()
    if invocation.json { return try invocation.printJSON(student) }
    print("Deleted \(visible(student.student)).")
  })

let list = Command(
  name: "list",
  abstract: "Lists every student, oldest first.",
  options: [StudentStore.option],
  supportsJSON: true,
  run: { invocation in
    let students = try StudentStore.readingContext(invocation).map(StudentStore.all) ?? []
    if invocation.json { return try invocation.printJSON(students) }
    if students.isEmpty { print("No students yet. Add one with `students add`.") }
    for student in students { print(visible(student.student)) }
  })

let count = Command(
  name: "count",
  abstract: "Prints how many students there are.",
  options: [StudentStore.option],
  supportsJSON: true,
  run: { invocation in
    let count =
      try StudentStore.readingContext(invocation)?.fetchCount(FetchDescriptor<Student>()) ?? 0
    if invocation.json { return try invocation.printJSON(["count": count]) }
    print(count)
  })

let path = Command(
  name: "path",
  abstract:
    "Prints where the store is: the file's path, or the PostgreSQL database, server and user "
    + "(never the password).",
  options: [StudentStore.option],
  supportsJSON: true,
  run: { invocation in
    let store = try StudentStore.location(invocation)
    if invocation.json { return try invocation.printJSON(store) }
    print(visible(store.description))
  })

let students = Command(
  name: "students",
  abstract: "Keeps a list of students in Documents/SQlite3/SwiftUICDSave2.sqlite.",
  discussion: """
    The list is kept in the app's Documents folder, as in the seed app, unless --store or the \
    environment variable KURA_STORE_URL names another store: a file path, or a PostgreSQL \
    database as a URL (postgresql://user@host/app) or a connection string \
    ("host=/run/postgresql dbname=app"). --store wins over KURA_STORE_URL. Give a password \
    through ~/.pgpass (PGPASSFILE) or PGPASSWORD rather than in the URL; Kura never prints it.
    """,
  subcommands: [add, deleteLast, list, count, path])

CommandLineTool.main(students)
