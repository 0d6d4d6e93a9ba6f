import Synchronization
import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Writers on many threads (§6.5): serialised per table, nothing lost, stamps unique, readers
/// always see a consistent table.
@Suite struct StorageConcurrencyTests {
    @Test func thirtyTwoWritersLoseNothing() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        var storage = try dir.open()
        try storage.createTable("t", softDelete: true)
        let shared = storage
        let failures = Atomic<Int>(0)
        StorageTestThreads.run(32) { thread in
            for i in 0..<100 {
                do {
                    try shared.putTestRow("t", "w\(thread)-\(i)", ["thread": .number(Double(thread)), "i": .number(Double(i))])
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        let fsyncs = storage.syncCount
        print("32 × 100 writes took \(fsyncs) fsyncs")
        storage.close()

        storage = try dir.open()
        defer { storage.close() }
        let rows = try storage.allRows("t")
        #expect(rows.count == 3_200)
        #expect(Set(rows.map(\.version)) == Set(1...3_200))
        #expect(Set(rows.map(\.updatedAt)).count == 3_200)
        for thread in 0..<32 {
            for i in 0..<100 {
                #expect(try storage.row("t", id: "W\(thread)-\(i)")?.columns["i"] == .number(Double(i)))
            }
        }
    }

    @Test func aWriteReturnsOnlyAfterAnFsyncThatCoversIt() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        let commit = storage.handle("t")!.commit
        for i in 0..<5 {
            let syncs = commit.syncCount
            try storage.putTestRow("t", "r\(i)")
            let (appended, durable) = commit.positions
            #expect(appended > 0 && durable == appended)
            #expect(commit.syncCount == syncs + 1)
        }
        // A write that changes nothing appends nothing and needs no fsync of its own.
        let syncs = commit.syncCount
        try storage.write("t") { w in _ = w.row(id: "r1") }
        #expect(commit.syncCount == syncs)
    }

    @Test func ofManyInsertsOfOneNewIdExactlyOneWins() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        let wins = Atomic<Int>(0)
        StorageTestThreads.run(32) { thread in
            let inserted = try! storage.write("t") { w -> Bool in
                guard w.row(id: "SAME") == nil else { return false }  // a conflict: 409
                let (v, u) = w.nextStamp()
                w.put(StoredRow(id: thread % 2 == 0 ? "same" : "Same", columns: ["by": .number(Double(thread))], createdAt: u,
                                updatedAt: u, version: v))
                return true
            }
            if inserted { wins.add(1, ordering: .relaxed) }
        }
        #expect(wins.load(ordering: .relaxed) == 1)
        #expect(try storage.rowCount("t", includeDeleted: true) == 1)
    }

    @Test func ofManyUpdatesExpectingOneVersionExactlyOneWins() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        let original = try storage.putTestRow("t", "x", ["n": 0])
        let wins = Atomic<Int>(0)
        StorageTestThreads.run(32) { thread in
            let updated = try! storage.write("t") { w -> Bool in
                guard var row = w.row(id: "x"), row.version == original.version else { return false }  // 412
                (row.version, row.updatedAt) = w.nextStamp()
                row.columns["n"] = .number(Double(thread))
                w.put(row)
                return true
            }
            if updated { wins.add(1, ordering: .relaxed) }
        }
        #expect(wins.load(ordering: .relaxed) == 1)
        #expect(try storage.row("t", id: "x")!.version == original.version + 1)
    }

    @Test func readersSeeAConsistentTableWhileWritersWrite() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("a", softDelete: true)
        try storage.createTable("b", softDelete: true)
        let done = Atomic<Int>(0)
        let problems = Atomic<Int>(0)
        StorageTestThreads.run(10) { thread in
            if thread < 8 {
                let table = thread % 2 == 0 ? "a" : "b"
                for i in 0..<50 {
                    // Each write moves one row and adds one: a reader must never see half of it.
                    _ = try! storage.write(table) { w in
                        let (v, u) = w.nextStamp()
                        w.put(StoredRow(id: "t\(thread)-\(i)", columns: [:], createdAt: u, updatedAt: u, version: v))
                        if i > 0 {
                            var previous = w.row(id: "t\(thread)-\(i - 1)")!
                            (previous.version, previous.updatedAt, previous.deleted) = (v, u, true)
                            w.put(previous)
                        }
                    }
                }
                done.add(1, ordering: .relaxed)
            } else {
                while done.load(ordering: .relaxed) < 8 {
                    for table in ["a", "b"] {
                        let rows = try! storage.allRows(table)
                        let sorted = zip(rows, rows.dropFirst()).allSatisfy { $0.precedesInUpdateOrder($1) }
                        let live = rows.filter { !$0.deleted }.count
                        // Every writer that has started has exactly one live row.
                        let writers = Set(rows.map { $0.id.split(separator: "-")[0] }).count
                        if !sorted || live != writers { problems.add(1, ordering: .relaxed) }
                        let page = try! storage.rows(table, updatedAfter: nil, inclusive: false, includeDeleted: false, limit: 100)
                        if page.contains(where: \.deleted) || page.count > 4 { problems.add(1, ordering: .relaxed) }
                    }
                }
            }
        }
        #expect(problems.load(ordering: .relaxed) == 0)
        #expect(try storage.rowCount("a", includeDeleted: false) == 4)
        #expect(try storage.rowCount("b", includeDeleted: true) == 200)
    }
}
