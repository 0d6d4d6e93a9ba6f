import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// Issue 21 item 4: the pages of the queue in the index of pending operations (`PendingPages`)
/// kept by each commit of a local change are the pages a listing makes: `queue-<k>` by each
/// operation's number, `items-<k>` by the number of its item's first operation, so an item moves
/// to a later page when its first operation leaves the queue (a push) and a page with no names
/// has no file.
@Suite struct PendingPagesTests {
    static func op(_ sequence: Int, _ id: String, _ kind: PendingOperation.Kind) -> PendingOperation {
        let item = Item(id: id, fields: ["text": .string("\(id) \(sequence)")])
        return PendingOperation(sequence: sequence, table: "todoitem", id: id, kind: kind, item: item,
                                base: kind == .insert ? nil : item, queuedAt: "2024-05-01T09:00:01.000Z")
    }

    static func names(_ store: Store, _ kind: QueuePages, _ page: Int) throws -> [Int] {
        try store.queuePage(kind, page).map(\.sequence)
    }

    @Test func commitsKeepThePagesAListingMakes() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        store.keepsPendingIndex = true
        func commit(put: [PendingOperation], remove: [PendingOperation] = []) throws {
            _ = try store.operations(table: "todoitem", id: "z")  // a local change looks its item up first
            var tx = try store.transaction()
            for op in put {
                tx.putItem(op.item, table: op.table)
                tx.putOperation(op)
            }
            for op in remove { tx.remove(store.layout.operation(op)) }
            try store.commit(tx)
            #expect(PendingIndex.vouchedStamp(store) != nil, "the commit kept the index")
            #expect(PendingIndex.check(store).isEmpty, "the kept pages are the listing's")
        }
        let (a1, b, c, a2) = (Self.op(248, "a", .insert), Self.op(249, "b", .insert), Self.op(251, "c", .insert), Self.op(253, "a", .update))
        try commit(put: [a1, b])
        try commit(put: [c, a2])
        #expect(try store.queuePages(.operations) == [0, 1] && store.queuePages(.items) == [0, 1])
        #expect(try Self.names(store, .operations, 0) == [248, 249] && Self.names(store, .operations, 1) == [251, 253])
        #expect(try Self.names(store, .items, 0) == [248, 249, 253], "a's update goes with its insert")
        #expect(try Self.names(store, .items, 1) == [251])
        try commit(put: [], remove: [a1])  // a's insert confirmed
        #expect(try Self.names(store, .items, 0) == [249])
        #expect(try Self.names(store, .items, 1) == [251, 253], "a now starts at 253")
        try commit(put: [], remove: [b])
        #expect(try store.queuePages(.operations) == [1] && store.queuePages(.items) == [1], "emptied pages are removed")
    }

    /// A rebuild from a listing (what doctor and a writer with a stale index do) makes the same pages.
    @Test func aRebuildMakesTheSamePages() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        for op in [Self.op(5, "a", .insert), Self.op(625, "b", .insert), Self.op(626, "a", .update), Self.op(1_750, "c", .delete)] {
            tx.putItem(op.item, table: op.table)
            tx.putOperation(op)
        }
        try store.commit(tx)
        #expect(try store.queuePages(.operations) == nil, "nothing vouches yet")
        let folder = store.fs.directoryStamp(store.layout.absolute(StoreLayout.operationsDirectory))
        PendingIndex.rebuild(store, folder: folder)
        #expect(try store.queuePages(.operations) == [0, 2, 7] && store.queuePages(.items) == [0, 2, 7])
        #expect(try Self.names(store, .items, 0) == [5, 626])
        #expect(try Self.names(store, .operations, 2) == [625, 626])
        #expect(PendingIndex.names(PendingIndex.deletesFile, in: store) == ["0000001750.delete.todoitem.c.json"])
    }

    /// Issue 21: the rebuild walks the folder through sorts that spill to disk, so it holds a
    /// sort's budget of names, never the queue (it held the listing and every file's names: 518 MB
    /// at a million operations), and writes the same files as with room for everything.
    @Test func aRebuildHoldsASortsBudgetOfNames() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try makeStore(dir)
        var tx = try store.transaction()
        for i in 0..<150 {
            let op = Self.op(1 + i * 37, "i\(i % 50)", i < 50 ? .insert : i < 140 ? .update : .delete)
            tx.putItem(op.item, table: op.table)
            tx.putOperation(op)
        }
        try store.commit(tx)
        let folder = store.fs.directoryStamp(store.layout.absolute(StoreLayout.operationsDirectory))
        func files() throws -> [String: [UInt8]] {
            var files: [String: [UInt8]] = [:]
            let dir = store.layout.absolute(PendingIndex.directory)
            for name in try store.fs.listDirectory(dir) ?? [] where name != "stamp" { files[name] = try store.fs.readFile(dir + "/" + name) }
            return files
        }
        PendingIndex.rebuild(store, folder: folder)
        let roomy = try files()
        #expect(store.pendingIndexFigures.runs == 0 && store.pendingIndexFigures.names >= 150)
        store.pendingIndexSortBudget = 2048
        store.pendingIndexFigures = PendingIndexFigures()
        PendingIndex.rebuild(store, folder: folder)
        #expect(try files() == roomy, "the same files")
        #expect(roomy.count > 10, "buckets and pages: \(roomy.keys.sorted())")
        #expect(store.pendingIndexFigures.names <= 50, "a sort's budget of names: \(store.pendingIndexFigures)")
        #expect(store.pendingIndexFigures.runs >= 4, "through runs on disk: \(store.pendingIndexFigures)")
        #expect(PendingIndex.vouchedStamp(store) != nil && PendingIndex.check(store).isEmpty)
    }

    /// Issue 21: `rm` of an item at 100,000 pending operations rewrote two pages of 1,000 names
    /// (76 KB each) besides its bucket: 10.1 ms. A page holds fewer numbers now, so a local change
    /// rewrites a few hundred names of the index whatever the queue's length. Counted in the
    /// commit's journal, through the file-system seam.
    @Test func aRemovalRewritesAFewHundredNamesOfTheIndex() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = CountingFileSystem()
        let store = try makeStore(dir, fs: fs)
        var tx = try store.transaction()
        for i in 1...900 {
            let op = Self.op(i, "i\(i)", .insert)
            tx.putItem(op.item, table: op.table)
            tx.putOperation(op)
        }
        try store.commit(tx)
        PendingIndex.rebuild(store, folder: store.fs.directoryStamp(store.layout.absolute(StoreLayout.operationsDirectory)))
        store.keepsPendingIndex = true
        let gone = try store.operations(table: "todoitem", id: "i450")  // a local change looks its item up first
        #expect(gone.count == 1)
        fs.reset()
        tx = try store.transaction()
        tx.removeItem(table: "todoitem", id: "i450")
        for op in gone { tx.remove(store.layout.operation(op)) }
        try store.commit(tx)
        let journal = try #require(fs.journals.last)
        let names = String(decoding: journal, as: UTF8.self).split(separator: ".insert.todoitem.", omittingEmptySubsequences: false).count - 1
        #expect(names <= 2 * 250 + 10, "names of pending operations in the journal of one removal at 900 pending: \(names)")
        #expect(PendingIndex.vouchedStamp(store) != nil && PendingIndex.check(store).isEmpty, "the kept index matches the folder")
    }
}
