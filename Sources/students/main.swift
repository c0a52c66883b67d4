import Foundation
import Kura
import KuraCLI

// `students`: the seed's Core Data "students" app on Kura's model store.

let add = Command(
  name: "add",
  abstract: "Adds a student: a random name from the seed's lists, or the one given.",
  options: [Option("name", help: "The student's full name, such as \"Luna Lovegood\".")],
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
    let context = try StudentStore.context()
    let student = Student(student: name)
    try context.insert(student)
    try context.save()
    if invocation.json { return try invocation.printJSON(student) }
    print("Added \(visible(student.student)).")
  })

let deleteLast = Command(
  name: "delete-last",
  abstract: "Deletes the most recently added student.",
  supportsJSON: true,
  run: { invocation in
    let context = try StudentStore.context()
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
  supportsJSON: true,
  run: { invocation in
    let students = try StudentStore.readingContext().map(StudentStore.all) ?? []
    if invocation.json { return try invocation.printJSON(students) }
    if students.isEmpty { print("No students yet. Add one with `students add`.") }
    for student in students { print(visible(student.student)) }
  })

let count = Command(
  name: "count",
  abstract: "Prints how many students there are.",
  supportsJSON: true,
  run: { invocation in
    let count = try StudentStore.readingContext()?.fetchCount(FetchDescriptor<Student>()) ?? 0
    if invocation.json { return try invocation.printJSON(["count": count]) }
    print(count)
  })

let path = Command(
  name: "path",
  abstract: "Prints where the store file is.",
  supportsJSON: true,
  run: { invocation in
    let url = try StudentStore.url()
    if invocation.json { return try invocation.printJSON(["path": url.path]) }
    print(url.path)
  })

let students = Command(
  name: "students",
  abstract: "Keeps a list of students in Documents/SQlite3/SwiftUICDSave2.sqlite.",
  subcommands: [add, deleteLast, list, count, path])

CommandLineTool.main(students)
