import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// Issue 16 item 3: `Doctor` returns what it found as values (`DoctorFinding`); the words are the
/// command line's. These are the values for a few kinds of damage, with the paths as shown.
@Suite struct DoctorFindingTests {
    @Test func damageIsReportedAsTypedFindings() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        let item = Item(id: "Abc", fields: ["text": "milk"])
        tx.putItem(item, table: "todoitem")
        tx.putOperation(PendingOperation(sequence: 1, table: "todoitem", id: item.id, kind: .insert, item: item, base: nil,
                                         queuedAt: "2024-05-01T09:00:01.000Z"))
        tx.setNextSequence(2)
        try store.commit(tx)
        let fs = LocalFileSystem()
        try fs.writeFile(dir.sub(".todo/stray.txt"), Array("x".utf8), sync: false)
        try fs.writeFile(dir.sub(".todo/operations/not-an-op.json"), Array("{}".utf8), sync: false)
        try fs.writeFile(dir.sub(".todo/operations/0000000007.update.todoitem.abc.json"), Array("{torn".utf8), sync: false)
        try fs.writeFile(dir.sub(".todo/operations/8.update.todoitem.abc.json"), Array("{}".utf8), sync: false)
        try fs.writeFile(dir.sub(".todo/tables/todoitem/items/.x.json.tmp"), Array("{".utf8), sync: false)

        let report = Doctor.check(store)

        let byPath = Dictionary(grouping: report.problems, by: \.path).mapValues { $0.map(\.finding) }
        #expect(byPath[".todo/stray.txt"] == [.unexpectedFile])
        #expect(byPath[".todo/operations/not-an-op.json"] == [.notAnOperationFileName])
        #expect(byPath[".todo/tables/todoitem/items/.x.json.tmp"] == [.leftoverTemporaryFile])
        #expect(byPath[".todo/operations/8.update.todoitem.abc.json"] == [.operationFileMisnamed(expected: "0000000008.update.todoitem.abc.json")])
        guard case .damaged(let reason)? = byPath[".todo/operations/0000000007.update.todoitem.abc.json"]?.first else {
            Issue.record("a torn operation file is a damaged record: \(report.problems)")
            return
        }
        #expect(!reason.isEmpty)
        #expect(report.problems.map(\.path) == report.problems.map(\.path).sorted(), "in path order")
    }
}
