#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// Readers while a writer holds a journal on disk (a push or pull between its first and last
/// commit) read the state after that journal's commit, at once.
@Suite struct JournalViewTests {
    static func item(_ id: String, _ text: String) -> Item { Item(id: id, fields: ["text": .string(text)]) }

    /// A live writer past its commit point that has written none of its files yet: its journal is
    /// on disk and it holds the lock. The reader gets the state after the journal's commit on its
    /// first try: new and rewritten items, a new table's folder, removals, and the generation.
    @Test func aReaderSeesTheJournalsCommitWhileTheWriterHoldsIt() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var setup = try store.transaction()
        for n in 1...20 { setup.putItem(Self.item("i\(n)", "old \(n)"), table: "todoitem") }
        try store.commit(setup)

        var tx = try store.transaction()
        for n in 1...10 { tx.putItem(Self.item("i\(n)", "new \(n)"), table: "todoitem") }
        for n in 11...15 { tx.removeItem(table: "todoitem", id: "i\(n)") }
        for n in 1...20 { tx.putItem(Self.item("s\(n)", "shop \(n)"), table: "shopping") }
        let encoded = Store.stamped(tx).encoded()
        try store.writeJournal(encoded.journal)

        let reader = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: false, command: "status")
        let calls = Atomic<Int>(0)
        let (items, shopping, tables, generation) = try reader.consistentRead { s throws(StoreError) in
            calls.add(1, ordering: .relaxed)
            return (try s.items(table: "todoitem"), try s.items(table: "shopping"), try s.tables(), try s.state().generation)
        }
        #expect(calls.load(ordering: .relaxed) == 1, "no retry while the journal stays the same")
        let expected = (1...10).map { Self.item("i\($0)", "new \($0)") } + (16...20).map { Self.item("i\($0)", "old \($0)") }
        #expect(Set(items.map { ItemCopyFormat.json($0).compactText }) == Set(expected.map { ItemCopyFormat.json($0).compactText }))
        #expect(shopping.count == 20)
        #expect(tables == ["shopping", "todoitem"])
        #expect(generation == tx.state.generation + 1)
        #expect(try reader.consistentRead { s throws(StoreError) in s.hasConflict(table: "todoitem", id: "i1") } == false)

        try Recovery.apply(encoded.files, in: store)
        let after = try reader.consistentRead { s throws(StoreError) in try s.items(table: "todoitem") }
        #expect(Set(after.map { ItemCopyFormat.json($0).compactText }) == Set(expected.map { ItemCopyFormat.json($0).compactText }), "the same state once it is applied")
    }

    /// A journal replaced during the read (the writer's next commit) voids it: the read is made
    /// again, and returns the newer state.
    @Test func aJournalReplacedDuringTheReadMakesItReadAgain() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        let series = CommitSeries(store: store)
        var first = try store.transaction()
        for n in 1...20 { first.putItem(Self.item("i\(n)", "first"), table: "todoitem") }
        try series.commit(first)

        let reader = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: false, command: "status")
        let calls = Atomic<Int>(0)
        let texts = try reader.consistentRead { s throws(StoreError) in
            let texts = Set(try s.items(table: "todoitem").map { $0.fields["text"]!.stringValue! })
            if calls.add(1, ordering: .relaxed).newValue == 1 {
                var second = store.transaction(following: first)
                for n in 1...20 { second.putItem(Self.item("i\(n)", "second"), table: "todoitem") }
                try series.commit(second)
            }
            return texts
        }
        #expect(calls.load(ordering: .relaxed) == 2)
        #expect(texts == ["second"])
        try series.finish()
    }

    /// The view is for reading: any write through it fails and names the path.
    @Test func theViewRefusesWrites() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        tx.putItem(Self.item("a", "x"), table: "todoitem")
        let journal = try JSONValue.parse(tx.encoded().journal)
        let view = try JournalView(base: LocalFileSystem(), layout: store.layout, journal: journal)
        #expect(throws: FileSystemError(operation: "write", path: dir.sub(".todo/x.json"), code: EROFS,
                                        reason: "a reader's view of a commit is read-only")) {
            try view.writeFile(dir.sub(".todo/x.json"), [], sync: false)
        }
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/x.json")), "nothing was written through the view")
        #expect(view.fileExists(store.layout.absolute(store.layout.item("todoitem", "a"))))
        #expect(!LocalFileSystem().fileExists(store.layout.absolute(store.layout.item("todoitem", "a"))))
    }
}
