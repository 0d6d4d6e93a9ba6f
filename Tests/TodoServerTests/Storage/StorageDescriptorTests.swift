import Glibc
import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 17 item 4: the storage's file descriptors do not grow with the number of tables. A log is
/// open only while it is among the 64 most recently written (`OpenLogs`); at start none is.
@Suite struct StorageDescriptorTests {
    /// This process's open descriptors on `.log` files under `directory` (other tests run in
    /// parallel, so only this storage's files are counted).
    static func openLogs(under directory: String) -> Int {
        let fds = ((try? LocalFileSystem().listDirectory("/proc/self/fd")) ?? nil) ?? []
        var count = 0
        for fd in fds {
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/fd/" + fd, &buffer, buffer.count - 1)
            guard n > 0 else { continue }
            let target = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix(directory + "/"), target.hasSuffix(".log") { count += 1 }
        }
        return count
    }

    @Test func descriptorsDoNotGrowWithTheNumberOfTables() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try TableStorage(directory: dir.data)
        for n in 0..<150 {
            try storage.createTable("t\(n)", softDelete: true)
            try storage.putTestRow("t\(n)", "row", ["k": .number(Double(n))])
        }
        #expect(Self.openLogs(under: dir.data) <= 64, "150 tables written: at most 64 logs stay open")
        // Every table still takes writes (its log is opened again), and reads see them.
        for n in 0..<150 { try storage.putTestRow("t\(n)", "row", ["k": .number(Double(n + 1))]) }
        #expect(Self.openLogs(under: dir.data) <= 64)
        for n in stride(from: 0, to: 150, by: 7) {
            #expect(try storage.row("t\(n)", id: "row")?.columns["k"] == .number(Double(n + 1)))
        }
        storage.close()
        #expect(Self.openLogs(under: dir.data) == 0)

        // After a restart, no log is open until it is written.
        let reopened = try TableStorage(directory: dir.data)
        defer { reopened.close() }
        #expect(Self.openLogs(under: dir.data) == 0)
        #expect(reopened.tableNames().count == 150)
        try reopened.putTestRow("t3", "other")
        #expect(Self.openLogs(under: dir.data) == 1)
    }

    @Test func aClosedLogIsReopenedForTheNextWriteAndKeepsEverything() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var tuning = TableStorage.Tuning()
        tuning.openLogs = 2
        let storage = try dir.open(tuning: tuning)
        for name in ["a", "b", "c", "d"] { try storage.createTable(name, softDelete: true) }
        for round in 0..<5 {
            for name in ["a", "b", "c", "d"] { try storage.putTestRow(name, "r\(round)", ["round": .number(Double(round))]) }
            #expect(Self.openLogs(under: dir.data) <= 2)
        }
        storage.close()
        let reopened = try dir.open(tuning: tuning)
        defer { reopened.close() }
        for name in ["a", "b", "c", "d"] {
            #expect(try reopened.allRows(name).map(\.id).sorted() == ["r0", "r1", "r2", "r3", "r4"])
        }
    }

    @Test func concurrentWritersToManyTablesWithFewOpenLogs() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var tuning = TableStorage.Tuning()
        tuning.openLogs = 3
        let storage = try dir.open(tuning: tuning)
        for n in 0..<12 { try storage.createTable("t\(n)", softDelete: true) }
        StorageTestThreads.run(8) { thread in
            for i in 0..<60 { _ = try? storage.putTestRow("t\((thread + i) % 12)", "w\(thread)-\(i)") }
        }
        #expect(Self.openLogs(under: dir.data) <= 3 + 8, "at most the open logs plus one per writer in flight")
        let total = try (0..<12).reduce(0) { $0 + (try storage.rowCount("t\($1)", includeDeleted: true)) }
        #expect(total == 8 * 60)
        storage.close()
        let reopened = try dir.open(tuning: tuning)
        defer { reopened.close() }
        #expect(try (0..<12).reduce(0) { $0 + (try reopened.rowCount("t\($1)", includeDeleted: true)) } == 8 * 60)
    }
}
