#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

func makeStore(_ dir: TempDirectory, fs: any FileSystem = LocalFileSystem()) throws -> Store {
    let root = dir.sub(".todo")
    try Store.create(at: root, config: ReplicaConfig(installationId: "inst"), fs: fs)
    return try Store.open(at: root, fs: fs, writable: true, command: "test")
}

@Suite struct StoreTests {
    static let item = Item(id: "Abc", fields: ["text": "milk", "complete": false, "priority": 3],
                           system: SystemProperties(createdAt: "2024-05-01T09:00:00.000Z", updatedAt: "2024-05-01T09:00:00.000Z", version: "AAAAAAAAAAE="))

    /// More than 256 operations are read on several threads: same ops, same order, and a bad
    /// file anywhere still fails the read.
    @Test func aLongQueueReadsInQueueOrder() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        tx.putTableConfig(TableConfig(name: "other"))
        var expected: [PendingOperation] = []
        for n in 1...700 {
            let table = n % 7 == 0 ? "other" : "todoitem"
            let item = Item(id: "i\(n)", fields: ["text": .string("t\(n)")])
            let op = PendingOperation(sequence: n, table: table, id: item.id, kind: .insert, item: item, base: nil,
                                      queuedAt: "2024-05-01T09:00:01.000Z")
            tx.putOperation(op)
            expected.append(op)
        }
        tx.setNextSequence(701)
        try store.commit(tx)
        #expect(try store.operations() == expected)
        #expect(try store.operations(table: "todoitem") == expected.filter { $0.table == "todoitem" })
        let badName = ".todo/operations/" + store.layout.operation(expected[400]).split(separator: "/").last!
        let bad = dir.sub(badName)
        try LocalFileSystem().writeFile(bad, Array("{\"format\": 1}".utf8), sync: false)
        // Refused naming the damaged file (read by the parallel reader: more than 256 ops).
        let error = #expect(throws: StoreError.self) { try store.operations() }
        guard case .corrupt(let path, let reason)? = error else {
            Issue.record("expected .corrupt naming \(badName), got \(String(describing: error))")
            return
        }
        #expect(path == badName, "named as the store's messages name files")
        #expect(!reason.isEmpty)
    }

    @Test func recordsRoundTripThroughTheStore() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        tx.putItem(Self.item, table: "todoitem")
        let op = PendingOperation(sequence: 1, table: "todoitem", id: "Abc", kind: .update, item: Self.item, base: Self.item,
                                  queuedAt: "2024-05-01T09:00:01.000Z")
        tx.putOperation(op)
        let conflict = Conflict(table: "todoitem", id: "Abc", reason: .conflict, operation: op.reference, status: 412,
                                detectedBy: .push, detectedAt: "2024-05-01T09:00:02.000Z", message: nil, base: Self.item,
                                client: Self.item, server: Self.item, fields: ["text"])
        tx.putConflict(conflict)
        let receipt = tx.addReceipt(Receipt(at: "2024-05-01T09:00:03.000Z", decision: .collapse, rule: "update+update",
                                            table: "todoitem", id: "Abc", operation: op.reference, kept: Self.item,
                                            lost: ["client": ["text": "old"]]))
        tx.setNextSequence(2)
        try store.commit(tx)

        #expect(try store.item(table: "todoitem", id: "aBC") == Self.item)
        #expect(try store.operations() == [op])
        #expect(try store.conflict(table: "todoitem", id: "ABC") == conflict)
        #expect(try store.receipts() == [receipt] && receipt.number == 1)
        #expect(try store.state() == ReplicaState(generation: 1, nextSequence: 2, nextReceipt: 2))
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/journal.json")))
    }

    @Test func rewritingUnchangedDataGivesIdenticalBytes() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        let path = dir.sub(".todo/" + store.layout.item("todoitem", "Abc"))
        var tx = try store.transaction()
        tx.putItem(Self.item, table: "todoitem")
        try store.commit(tx)
        let first = try LocalFileSystem().readFile(path)
        var again = try store.transaction()
        again.putItem(try store.item(table: "todoitem", id: "abc")!, table: "todoitem")
        try store.commit(again)
        #expect(try LocalFileSystem().readFile(path) == first)
        #expect(String(decoding: first!, as: UTF8.self).hasSuffix("}\n"))
    }

    @Test func aWriterMustWaitForTheLock() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        // Refused as locked, naming the holder: this process, and the command it gave.
        do {
            _ = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: true, command: "second")
            Issue.record("a second writer opened the store while the first held it")
        } catch .locked(_, let pid, let command) {
            #expect(pid == getpid())
            #expect(command == "test")
        } catch {
            Issue.record("expected .locked, got \(error)")
        }
        store.close()
        _ = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: true, command: "second")
    }

    @Test func discoveryWalksUpLikeGit() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        _ = try makeStore(dir)
        try LocalFileSystem().createDirectory(dir.sub("a/b/c"))
        #expect(try Store.discover(from: dir.sub("a/b/c"), override: nil, fs: LocalFileSystem()) == dir.sub(".todo"))
        #expect(throws: StoreError.notAReplica(start: "/")) { try Store.discover(from: "/", override: nil, fs: LocalFileSystem()) }
    }

    @Test func aLeftoverJournalIsCompletedByTheNextWriter() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        tx.putItem(Self.item, table: "todoitem")
        tx.state.generation += 1
        // Simulate a writer killed right after its commit point: the journal exists, no target was written.
        try AtomicFile.write(tx.encoded().journal, to: dir.sub(".todo/journal.json"), in: LocalFileSystem())
        try LocalFileSystem().writeFile(dir.sub(".todo/.journal.json.tmp"), Array("{torn".utf8), sync: false)
        store.close()

        let reopened = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: true, command: "test")
        #expect(try reopened.item(table: "todoitem", id: "abc") == Self.item)
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/journal.json")))
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/.journal.json.tmp")))
        #expect(Doctor.check(reopened).problems.isEmpty)
    }

    @Test func theJournalHoldsEveryStagedFileAsItWillBeWritten() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        let odd = Item(id: "q\"uote é", fields: ["text": .string("line\nbreak \u{1F600}"), "n": .number(1.5)])
        tx.putItem(Self.item, table: "todoitem")
        tx.putItem(odd, table: "todoitem")
        tx.removeItem(table: "todoitem", id: "gone")
        let encoded = tx.encoded()
        let replayed = try Recovery.parseJournal(try JSONValue.parse(encoded.journal))
        #expect(Set(replayed.keys) == Set(tx.staged.keys))
        for (path, content) in tx.staged {
            #expect(replayed[path]! == content, "\(path) reads back from the journal as staged")
            #expect(encoded.files[path]! == content.map { $0.canonicalBytes() }, "\(path) is written as its canonical bytes")
        }
    }

    @Test func aFollowingTransactionStartsFromTheStateItsPredecessorCommits() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var first = try store.transaction()
        first.putItem(Self.item, table: "todoitem")
        let following = store.transaction(following: first)
        try store.commit(first)
        #expect(following.state == (try store.state()), "staged before the commit, it holds the state the commit wrote")
        // An empty predecessor commits nothing, so the state stays.
        let empty = try store.transaction()
        #expect(store.transaction(following: empty).state == (try store.state()))
        var second = following
        second.removeItem(table: "todoitem", id: Self.item.id)
        try store.commit(second)
        #expect(try store.state().generation == following.state.generation + 1)
        #expect(try store.item(table: "todoitem", id: Self.item.id) == nil)
    }

    @Test func aReaderCompletesADeadWritersJournal() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        tx.putItem(Self.item, table: "todoitem")
        tx.state.generation += 1
        tx.put(StoreLayout.stateFile, StateFile(tx.state).json)
        try AtomicFile.write(tx.encoded().journal, to: dir.sub(".todo/journal.json"), in: LocalFileSystem())
        store.close()
        let reader = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: false, command: "status")
        let found = try reader.consistentRead { s throws(StoreError) in try s.item(table: "todoitem", id: "abc") }
        #expect(found == Self.item)
    }

    @Test func anUnknownFormatIsRefusedNamingTheFile() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        _ = try makeStore(dir).close()
        try LocalFileSystem().writeFile(dir.sub(".todo/format.json"), Array("{\"format\": 2}\n".utf8), sync: false)
        #expect(throws: StoreError.corrupt(path: dir.sub(".todo/format.json"),
                                           reason: "\"format\" is 2; this version of todo reads format 1 only")) {
            _ = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: false, command: "status")
        }
    }
}
