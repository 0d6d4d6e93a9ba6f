#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// The local file system, with what a power cut would lose made visible: a file written in place
/// is volatile until a syncfs that started after the write has returned. A syncfs can be held
/// until the test lets it go, and a hook runs after every rename.
final class PowerCutFileSystem: FileSystem, @unchecked Sendable {
    let base = LocalFileSystem()
    private let state = Mutex<(stamp: Int, volatile: [String: Int], syncs: Int)>((0, [:], 0))
    let holdFirstSync = Atomic<Bool>(false)
    let failSync = Atomic<Bool>(false)
    private let afterRenameHook = Mutex<(@Sendable (String) -> Void)?>(nil)

    var syncCount: Int { state.withLock { $0.syncs } }
    /// Files written in place that a power cut now could leave torn.
    var volatilePaths: [String] { state.withLock { Array($0.volatile.keys) } }
    func afterRename(_ hook: @escaping @Sendable (String) -> Void) { afterRenameHook.withLock { $0 = hook } }

    func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? { try base.readFile(path) }
    func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError) {
        try base.writeFile(path, bytes, sync: sync)
        state.withLock { s in
            s.stamp += 1
            if sync { s.volatile[path] = nil } else { s.volatile[path] = s.stamp }
        }
    }
    func rename(_ from: String, to: String) throws(FileSystemError) {
        try base.rename(from, to: to)
        state.withLock { s in s.volatile[to] = s.volatile.removeValue(forKey: from) }
        let hook = afterRenameHook.withLock { $0 }
        hook?(to)
    }
    func removeFile(_ path: String) throws(FileSystemError) {
        try base.removeFile(path)
        state.withLock { s in s.volatile[path] = nil }
    }
    func removeDirectory(_ path: String) throws(FileSystemError) { try base.removeDirectory(path) }
    func listDirectory(_ path: String) throws(FileSystemError) -> [String]? { try base.listDirectory(path) }
    func createDirectory(_ path: String) throws(FileSystemError) { try base.createDirectory(path) }
    func syncDirectory(_ path: String) throws(FileSystemError) { try base.syncDirectory(path) }
    func syncFileSystem(_ path: String) throws(FileSystemError) {
        let (start, number) = state.withLock { s in
            s.syncs += 1
            return (s.stamp, s.syncs)
        }
        while number == 1 && holdFirstSync.load(ordering: .acquiring) { usleep(1_000) }
        if failSync.load(ordering: .acquiring) {
            throw FileSystemError(operation: "syncfs", path: path, code: EIO, reason: "injected fault")
        }
        try base.syncFileSystem(path)
        state.withLock { s in s.volatile = s.volatile.filter { $0.value > start } }
    }
    func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    func isSymbolicLink(_ path: String) -> Bool { base.isSymbolicLink(path) }
}

@Suite struct CommitSeriesTests {
    static func items(_ range: ClosedRange<Int>, text: String) -> [Item] {
        range.map { Item(id: "i\($0)", fields: ["text": .string("\(text) \($0)")]) }
    }

    static func stage(_ items: [Item], in store: Store, after previous: StoreTransaction? = nil) throws -> StoreTransaction {
        var tx = try previous.map { store.transaction(following: $0) } ?? store.transaction()
        for item in items { tx.putItem(item, table: "todoitem") }
        return tx
    }

    static func copyTree(_ from: String, to: String) {
        let fs = LocalFileSystem()
        if fs.isDirectory(from) {
            try? fs.createDirectory(to)
            for name in (try? fs.listDirectory(from)) ?? [] { copyTree(from.appendingPath(name), to: to.appendingPath(name)) }
        } else if let bytes = try? fs.readFile(from) {
            try? fs.writeFile(to, bytes, sync: false)
        }
    }

    /// The invariant: a power cut at any instant loses nothing committed. Cut right after the
    /// second commit point, while the first commit's syncfs has not returned, so that commit's
    /// files may be torn: the second journal carries them, and recovery gives the state after
    /// the second commit. With and without files that both commits write.
    @Test(arguments: [false, true]) func aPowerCutBeforeTheEarlierSyncReturnsLosesNothing(overlapping: Bool) throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = PowerCutFileSystem()
        let store = try makeStore(dir, fs: fs)
        let series = CommitSeries(store: store)
        let first = Self.items(1...40, text: "first")
        let second = Self.items(overlapping ? 31...70 : 41...80, text: "second")
        fs.holdFirstSync.store(true, ordering: .releasing)
        let tx1 = try Self.stage(first, in: store)
        try series.commit(tx1)
        let copy = TempDirectory()
        defer { copy.remove() }
        let torn = Mutex<[String]>([])
        fs.afterRename { path in
            guard path.hasSuffix("/journal.json"), torn.withLock({ $0.isEmpty }) else { return }
            // The power cut: copy the store, tearing every file that is not durable yet.
            Self.copyTree(dir.sub(".todo"), to: copy.sub(".todo"))
            let volatile = fs.volatilePaths.filter { $0.contains("/items/") }
            for path in volatile {
                let target = copy.path + "/.todo" + path.dropFirst(dir.sub(".todo").count)
                let bytes = (try? fs.base.readFile(target)) ?? nil
                try? fs.base.writeFile(target, Array((bytes ?? []).prefix(5)), sync: false)
            }
            torn.withLock { $0 = volatile }
            fs.holdFirstSync.store(false, ordering: .releasing)
        }
        try series.commit(try Self.stage(second, in: store, after: tx1))
        try series.finish()
        #expect(torn.withLock { $0.count } == 40, "all of the first commit's items were still volatile at the cut")

        let recovered = try Store.open(at: copy.sub(".todo"), fs: LocalFileSystem(), writable: true, command: "test")
        for item in first where !second.contains(where: { $0.id == item.id }) {
            #expect(try recovered.item(table: "todoitem", id: item.id) == item)
        }
        for item in second { #expect(try recovered.item(table: "todoitem", id: item.id) == item) }
        #expect(Doctor.check(recovered).problems.isEmpty)
    }

    /// After `finish` everything is durable, there is no journal, and each commit is in the store.
    @Test func finishLeavesEveryCommitDurableAndNoJournal() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = PowerCutFileSystem()
        let store = try makeStore(dir, fs: fs)
        let series = CommitSeries(store: store)
        var previous: StoreTransaction?
        for round in 0..<5 {
            let tx = try Self.stage(Self.items(round * 20 + 1...round * 20 + 30, text: "round \(round)"), in: store, after: previous)
            try series.commit(tx)
            previous = tx
        }
        try series.finish()
        #expect(fs.syncCount == 5, "one syncfs per commit")
        #expect(fs.volatilePaths.isEmpty)
        #expect(!fs.fileExists(dir.sub(".todo/journal.json")))
        #expect(try store.state().generation == previous!.state.generation + 1)
        #expect(try store.item(table: "todoitem", id: "i1") == Item(id: "i1", fields: ["text": "round 0 1"]))
        #expect(try store.item(table: "todoitem", id: "i110") == Item(id: "i110", fields: ["text": "round 4 110"]))
        #expect(Doctor.check(store).problems.isEmpty)
    }

    /// A few files with nothing in flight: the plain commit, with its fsyncs and no syncfs.
    @Test func aSmallCommitWithNothingInFlightIsAPlainCommit() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = PowerCutFileSystem()
        let store = try makeStore(dir, fs: fs)
        let series = CommitSeries(store: store)
        try series.commit(try Self.stage(Self.items(1...3, text: "few"), in: store))
        #expect(fs.syncCount == 0)
        #expect(fs.volatilePaths.isEmpty)
        #expect(!fs.fileExists(dir.sub(".todo/journal.json")), "done before it returns")
        try series.finish()
        #expect(try store.item(table: "todoitem", id: "i2") == Item(id: "i2", fields: ["text": "few 2"]))
    }

    /// A failed syncfs stops the series with the error, and the journal lets the next writer
    /// finish the commits.
    @Test func aFailedSyncStopsTheSeriesAndRecoveryFinishesIt() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = PowerCutFileSystem()
        let store = try makeStore(dir, fs: fs)
        let series = CommitSeries(store: store)
        fs.failSync.store(true, ordering: .releasing)
        let tx1 = try Self.stage(Self.items(1...30, text: "one"), in: store)
        try series.commit(tx1)
        #expect(throws: StoreError.io(FileSystemError(operation: "syncfs", path: dir.sub(".todo"), code: EIO, reason: "injected fault"))) {
            try series.finish()
        }
        #expect(fs.fileExists(dir.sub(".todo/journal.json")), "kept for recovery")
        store.close()
        let reopened = try Store.open(at: dir.sub(".todo"), fs: LocalFileSystem(), writable: true, command: "test")
        #expect(try reopened.item(table: "todoitem", id: "i30") == Item(id: "i30", fields: ["text": "one 30"]))
        #expect(!LocalFileSystem().fileExists(dir.sub(".todo/journal.json")))
    }
}
