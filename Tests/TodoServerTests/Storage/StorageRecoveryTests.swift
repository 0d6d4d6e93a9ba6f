import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Opening a data directory after a crash: a torn last record (no final newline) is cut off,
/// everything else that cannot be read is an error naming the file and the byte.
@Suite struct StorageRecoveryTests {
    /// Three rows, then a fourth whose record is the last line of the log. Returns the rows and the
    /// offset where the last record starts.
    func makeLog(_ dir: StorageTestDirectory) throws -> (first: [StoredRow], lastStart: Int) {
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        for i in 0..<3 { try storage.putTestRow("t", "r\(i)", ["text": .string("row \(i)")]) }
        let first = try storage.allRows("t")
        let lastStart = StorageTestDirectory.read(dir.log("t")).count
        try storage.putTestRow("t", "last", ["text": "the last one", "n": 4])
        return (first, lastStart)
    }

    @Test func aTornLastRecordIsCutOffAtEveryByte() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let (first, lastStart) = try makeLog(dir)
        let whole = StorageTestDirectory.read(dir.log("t"))
        #expect(whole.count > lastStart + 20)
        // The last record names its version twice; a cut after the first one keeps it readable.
        let versionText = Array(#""version":4"#.utf8)
        let versionEnd = (lastStart..<whole.count).first { whole[$0...].starts(with: versionText) }! + versionText.count
        for cut in lastStart..<whole.count {
            StorageTestDirectory.write(dir.log("t"), Array(whole[..<cut]))
            let storage = try dir.open()
            #expect(try storage.allRows("t") == first, "cut at \(cut)")
            // The torn record is cut off; what stays is at most one record that keeps its stamp.
            let log = StorageTestDirectory.read(dir.log("t"))
            #expect(Array(log.prefix(lastStart)) == Array(whole[..<lastStart]), "cut at \(cut)")
            if log.count > lastStart {
                let json = TableLogFraming.payload(log, lastStart, log.count - 1)
                let commit = json.flatMap { try? TableLogDecoder.commit($0) }
                #expect(commit?.puts.isEmpty == true && commit?.removals.isEmpty == true && commit?.stamp != nil,
                        "cut at \(cut)")
            }
            // The log goes on after the cut: a new write lands where the torn record was.
            let added = try storage.putTestRow("t", "after")
            if cut >= versionEnd { #expect(added.version > 4, "cut at \(cut): version 4 was handed out again") }
            storage.close()
            let reopened = try dir.open()
            #expect(try reopened.allRows("t") == first + [added], "cut at \(cut)")
            reopened.close()
        }
    }

    /// A complete last line that fails its CRC is damage, not a torn tail (see `StorageBitRotTests`).
    @Test func garbageWithoutAFinalNewlineAfterTheLastWholeRecordIsCutOff() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let (first, lastStart) = try makeLog(dir)
        let whole = StorageTestDirectory.read(dir.log("t"))
        let tails: [[UInt8]] = [
            Array(whole[..<lastStart]) + [UInt8](repeating: 0, count: 4096),  // size grew, data never landed
            Array(whole[..<lastStart]) + Array("0123".utf8),
        ]
        for (i, bytes) in tails.enumerated() {
            StorageTestDirectory.write(dir.log("t"), bytes)
            let storage = try dir.open()
            #expect(try storage.allRows("t") == first, "tail \(i)")
            #expect(StorageTestDirectory.read(dir.log("t")).count == lastStart, "tail \(i): nothing to remember")
            storage.close()
        }
    }

    @Test func aDamagedRecordInTheMiddleIsAnErrorNamingFileAndOffset() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        _ = try makeLog(dir)
        let whole = StorageTestDirectory.read(dir.log("t"))
        let lineStarts = [0] + whole.indices.filter { whole[$0] == 0x0A }.map { $0 + 1 }.dropLast()
        let second = lineStarts[2]  // header, row 0, row 1 ← damage this one
        var damaged = whole
        damaged[second + 30] ^= 0x01
        StorageTestDirectory.write(dir.log("t"), damaged)
        let error = #expect(throws: StorageError.self) { try dir.open() }
        #expect(error?.kind == .corrupt)
        #expect(error?.path == dir.log("t"))
        #expect(error?.offset == second)
        #expect(error?.description.contains("at byte \(second)") == true)
        #expect(StorageTestDirectory.read(dir.log("t")) == damaged)  // nothing was changed
    }

    @Test func aWholeRecordThatDoesNotDecodeIsAnErrorEvenAtTheEnd() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        _ = try makeLog(dir)
        let whole = StorageTestDirectory.read(dir.log("t"))
        for json in [#"{"bogus":1}"#, #"{"put":[{"id":"x"}]}"#, "[1,2]", #"{"stamp":{"updatedAt":1.5,"version":2}}"#] {
            StorageTestDirectory.write(dir.log("t"), whole + TableLogFraming.line(Array(json.utf8)))
            let error = #expect(throws: StorageError.self, "\(json)") { try dir.open() }
            #expect(error?.kind == .corrupt && error?.offset == whole.count, "\(json)")
        }
    }

    @Test func headersAreChecked() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        _ = try makeLog(dir)
        let whole = StorageTestDirectory.read(dir.log("t"))
        let body = Array(whole[(whole.firstIndex(of: 0x0A)! + 1)...])
        func header(_ json: String) -> [UInt8] { TableLogFraming.line(Array(json.utf8)) }
        let cases: [(String, [UInt8], String)] = [
            ("t", [], "header"),
            ("t", Array(whole[..<10]), "header"),
            ("t", header(#"{"format":"todo-table-log","formatVersion":2,"lastUpdatedAt":0,"lastVersion":0,"softDelete":true,"table":"t"}"#) + body, "format version 2"),
            ("t", header(#"{"format":"other","formatVersion":1}"#) + body, "not a table log"),
            ("t", header(#"{"format":"todo-table-log","formatVersion":1,"lastUpdatedAt":0,"lastVersion":0,"softDelete":true,"table":"u"}"#), "names table 'u'"),
        ]
        for (table, bytes, reason) in cases {
            StorageTestDirectory.write(dir.log(table), bytes)
            let error = #expect(throws: StorageError.self, "\(reason)") { try dir.open() }
            #expect(error?.kind == .corrupt && error?.offset == 0 && error?.path == dir.log(table), "\(reason)")
            #expect(error?.message.contains(reason) == true, "\(String(describing: error)) should say \(reason)")
        }
        StorageTestDirectory.write(dir.log("t"), whole)
        StorageTestDirectory.write(dir.data + "/Bad-Name.log", whole)
        let badName = #expect(throws: StorageError.self) { try dir.open() }
        #expect(badName?.kind == .corrupt && badName?.path == dir.data + "/Bad-Name.log", "\(String(describing: badName))")
    }

    @Test func unfinishedTemporaryFilesAreRemoved() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let (first, _) = try makeLog(dir)
        StorageTestDirectory.write(dir.data + "/t.log.tmp", Array("half a compaction".utf8))
        StorageTestDirectory.write(dir.data + "/new.log.tmp", [])
        StorageTestDirectory.write(dir.data + "/notes.txt", Array("left alone".utf8))
        let storage = try dir.open()
        defer { storage.close() }
        #expect(storage.tableNames() == ["t"])
        #expect(try Array(storage.allRows("t").prefix(3)) == first)
        let names = try LocalFileSystem().listDirectory(dir.data)!.sorted()
        #expect(names == ["LOCK", "notes.txt", "t.log"])
    }
}
