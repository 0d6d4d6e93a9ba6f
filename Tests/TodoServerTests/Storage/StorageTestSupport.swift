import Glibc
import Synchronization
import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// A fresh directory under /tmp for one storage test, removed by `remove()`.
struct StorageTestDirectory {
    let path: String

    init() {
        var template = Array("/tmp/todo-storage-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    /// The data directory inside (not created, so opening storage creates it).
    var data: String { path + "/data" }

    func log(_ table: String) -> String { data + "/" + table.lowercased() + ".log" }

    func open(clock: Clock = .live, tuning: TableStorage.Tuning = .init()) throws -> TableStorage {
        try TableStorage(directory: data, clock: clock, tuning: tuning)
    }

    func remove() { Self.removeTree(path) }

    static func read(_ path: String) -> [UInt8] { ((try? LocalFileSystem().readFile(path)) ?? nil) ?? [] }

    static func write(_ path: String, _ bytes: [UInt8]) { try! LocalFileSystem().writeFile(path, bytes, sync: false) }

    private static func removeTree(_ path: String) {
        let fs = LocalFileSystem()
        if fs.isDirectory(path) {
            for name in (try? fs.listDirectory(path)) ?? [] { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

/// A clock the test moves by hand.
final class StorageTestClock: Sendable {
    private let ms: Atomic<Int64>
    init(_ start: Int64) { ms = Atomic(start) }
    func set(_ value: Int64) { ms.store(value, ordering: .relaxed) }
    var clock: Clock { Clock { [self] in ms.load(ordering: .relaxed) } }
}

extension TableStorage.Tuning {
    /// Compaction as soon as the log holds twice max(rows, minimumRows) row records.
    static func compactingEarly(minimumRows: Int = 8) -> Self {
        var tuning = Self()
        tuning.compactionMinimumRows = minimumRows
        return tuning
    }
}

extension TableStorage {
    /// Inserts or replaces a row with a fresh stamp (keeping createdAt and the id's spelling, as
    /// an update does) and returns it as stored.
    @discardableResult
    func putTestRow(_ table: String, _ id: String, _ columns: [String: JSONValue] = [:], deleted: Bool = false) throws
        -> StoredRow
    {
        var ticket = DurabilityTicket.durable
        let row = try putTestRow(table, id, columns, deleted: deleted, ticket: &ticket)
        try ticket.wait()
        return row
    }

    /// `putTestRow` without the durability wait: adds to `ticket` what the write needs.
    @discardableResult
    func putTestRow(_ table: String, _ id: String, _ columns: [String: JSONValue] = [:], deleted: Bool = false,
                    ticket: inout DurabilityTicket) throws -> StoredRow
    {
        try write(table, ticket: &ticket) { w in
            let (version, updatedAt) = w.nextStamp()
            let old = w.row(id: id)
            let row = StoredRow(id: old?.id ?? id, columns: columns, createdAt: old?.createdAt ?? updatedAt,
                                updatedAt: updatedAt, version: version, deleted: deleted)
            w.put(row)
            return row
        }
    }

    func hardDeleteTestRow(_ table: String, _ id: String) throws {
        try write(table) { w in w.remove(id: id) }
    }
}

enum StorageTestThreads {
    /// Runs `body(i)` for i in 0..<count, each on its own thread (not a pool: the writers must really
    /// be concurrent, and block in fsync), and waits for all of them.
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        final class Work: @unchecked Sendable {
            let run: () -> Void
            init(_ run: @escaping () -> Void) { self.run = run }
        }
        var threads: [pthread_t] = []
        for i in 0..<count {
            let work = Unmanaged.passRetained(Work { body(i) }).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { arg in
                Unmanaged<Work>.fromOpaque(arg!).takeRetainedValue().run()
                return nil
            }, work)
            precondition(rc == 0, "pthread_create failed")
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}

/// The kind of the `StorageError` that `body` throws; nil, with the test failed, when it throws
/// none or another error. For asserting the kind in one line: `#expect(storageError { … } == .locked)`.
func storageError(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> StorageError.Kind? {
    #expect(throws: StorageError.self, comment, sourceLocation: sourceLocation) { try body() }?.kind
}
