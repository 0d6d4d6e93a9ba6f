import Glibc
import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 17 item 3: `todo-server check` reports every damaged record with its file and offset;
/// `todo-server repair` keeps every record that verifies, moves the damaged bytes aside, and the
/// version counter resumes above every version they mention.
@Suite struct StorageRepairTests {
    struct Log {
        var rows: [StoredRow]
        /// Start offset of each line: the header, then one per row.
        var lineStarts: [Int]
        var bytes: [UInt8]
        func line(_ i: Int) -> Range<Int> { lineStarts[i]..<(i + 1 < lineStarts.count ? lineStarts[i + 1] : bytes.count) }
    }

    /// Five rows, each written by its own record (record i + 1 holds row i); the first also
    /// declares the column `text`, the last declares `n`.
    func makeLog(_ dir: StorageTestDirectory) throws -> Log {
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        var rows: [StoredRow] = []
        for i in 0..<5 { rows.append(try storage.putTestRow("t", "r\(i)", ["text": .string("row \(i)")] + (i == 4 ? ["n": 4] : [:]))) }
        let bytes = StorageTestDirectory.read(dir.log("t"))
        let starts = [0] + bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }.dropLast()
        return Log(rows: rows, lineStarts: Array(starts), bytes: bytes)
    }

    func damage(_ log: Log, lines: [Int], torn: [UInt8] = []) -> [UInt8] {
        var bytes = log.bytes
        for i in lines { bytes[log.line(i).lowerBound + 30] ^= 0x01 }
        return bytes + torn
    }

    @Test func checkReportsEveryDamagedRecordAndTheTornTailWithTheirOffsetsAndChangesNothing() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let log = try makeLog(dir)
        let damaged = damage(log, lines: [2, 5], torn: Array("0123abcd {\"put\"".utf8))
        StorageTestDirectory.write(dir.log("t"), damaged)

        let outcome = try DataDirectoryMaintenance.check(directory: dir.data)
        #expect(!outcome.serverCanStart)
        #expect(outcome.lines.count == 5, "\(outcome.lines)")
        #expect(outcome.lines[0] == "t.log: 3 records verify, \(damaged.count) bytes")
        #expect(outcome.lines[1].hasPrefix("  damaged record at byte \(log.line(2).lowerBound) (\(log.line(2).count) bytes): "
            + "its CRC-32 does not match its bytes"), "\(outcome.lines[1])")
        #expect(outcome.lines[2].hasPrefix("  damaged record at byte \(log.line(5).lowerBound) "), "\(outcome.lines[2])")
        #expect(outcome.lines[3].hasPrefix("  torn tail at byte \(log.bytes.count) (15 bytes, no final newline)"))
        #expect(outcome.lines[4].hasPrefix("damaged: t.log; the server will not start")
            && outcome.lines[4].contains("or run: todo-server repair --data '\(dir.data)' to keep"), "\(outcome.lines[4])")
        let unchanged = StorageTestDirectory.read(dir.log("t")) == damaged
        #expect(unchanged)
    }

    @Test func repairKeepsEveryRecordThatVerifiesMovesTheRestAsideAndVersionsAreNotReused() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let log = try makeLog(dir)
        let torn = Array("0123abcd {\"put\"".utf8)
        StorageTestDirectory.write(dir.log("t"), damage(log, lines: [2, 5], torn: torn))

        let outcome = try DataDirectoryMaintenance.repair(directory: dir.data)
        #expect(outcome.serverCanStart)
        #expect(outcome.lines == [
            "t.log: kept 3 records (all that verify); moved 2 damaged records (at byte \(log.line(2).lowerBound), byte "
                + "\(log.line(5).lowerBound)) and a torn tail of 15 bytes (at byte \(log.bytes.count)) to 't.log.damaged.1' "
                + "(\(log.line(2).count + log.line(5).count + 15) bytes); versions resume above \(log.rows[4].version)",
            "done: the server can start",
        ])
        let aside = StorageTestDirectory.read(dir.log("t") + ".damaged.1")
        let expectedAside = Array(damage(log, lines: [2, 5])[log.line(2)]) + Array(damage(log, lines: [2, 5])[log.line(5)]) + torn
        #expect(aside == expectedAside)

        let storage = try dir.open()
        defer { storage.close() }
        let kept = [log.rows[0], log.rows[2], log.rows[3]]
        #expect(try storage.allRows("t") == kept)
        #expect(try storage.schema("t")?.columns == ["text": .some(.string)])
        let next = try storage.putTestRow("t", "new")
        #expect(next.version > log.rows[4].version, "the version of the damaged last record was handed out again")
    }

    @Test func afterRepairCheckIsCleanAndASecondRepairDoesNothing() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let log = try makeLog(dir)
        StorageTestDirectory.write(dir.log("t"), damage(log, lines: [5]))
        _ = try DataDirectoryMaintenance.repair(directory: dir.data)
        let check = try DataDirectoryMaintenance.check(directory: dir.data)
        #expect(check.serverCanStart)
        #expect(check.lines == [
            "t.log: 5 records verify, \(StorageTestDirectory.read(dir.log("t")).count) bytes: ok",
            "t.log.damaged.1: bytes an earlier repair moved aside; kept for inspection, not read",
            "ok: 1 table log, no damage; the server can start",
        ])
        let again = try DataDirectoryMaintenance.repair(directory: dir.data)
        #expect(again.lines == ["t.log: ok, nothing to do", "done: the server can start"])
    }

    /// Whichever byte of the last record rots, even a digit of its version, the version is not
    /// handed out again: the record names it twice, and repair keeps the larger reading.
    @Test func whicheverByteOfTheLastRecordRotsItsVersionIsNotReused() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let log = try makeLog(dir)
        let last = log.line(5)
        for index in last.lowerBound..<(last.upperBound - 1) {
            var bytes = log.bytes
            bytes[index] ^= 0x01
            StorageTestDirectory.write(dir.log("t"), bytes)
            for name in (try LocalFileSystem().listDirectory(dir.data) ?? []) where name.contains(".damaged.") {
                unlink(dir.data + "/" + name)
            }
            let outcome = try DataDirectoryMaintenance.repair(directory: dir.data)
            #expect(outcome.serverCanStart, "byte \(index): \(outcome.lines)")
            let storage = try dir.open()
            #expect(try storage.allRows("t") == Array(log.rows.prefix(4)), "byte \(index)")
            #expect(try storage.putTestRow("t", "new").version > log.rows[4].version, "byte \(index)")
            storage.close()
        }
    }

    @Test func aDamagedDeclarationOfAColumnIsRedeclaredFromTheRowsThatKeepIt() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let log = try makeLog(dir)
        StorageTestDirectory.write(dir.log("t"), damage(log, lines: [1]))  // declared 'text', put r0
        let outcome = try DataDirectoryMaintenance.repair(directory: dir.data)
        #expect(outcome.lines[0].hasSuffix("declared columns 'text'"), "\(outcome.lines)")
        let storage = try dir.open()
        defer { storage.close() }
        #expect(try storage.schema("t")?.columns == ["text": .some(.string), "n": .some(.number)])
        #expect(try storage.allRows("t") == Array(log.rows.dropFirst()))
    }

    @Test func aDamagedHeaderIsReportedAndLeftForABackup() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let log = try makeLog(dir)
        var bytes = log.bytes
        bytes[20] ^= 0x01
        StorageTestDirectory.write(dir.log("t"), bytes)
        for outcome in [try DataDirectoryMaintenance.check(directory: dir.data),
                        try DataDirectoryMaintenance.repair(directory: dir.data)] {
            #expect(!outcome.serverCanStart)
            #expect(outcome.lines[0].hasPrefix("t.log: the header (byte 0) is damaged")
                && outcome.lines[0].hasSuffix("restore this file from a backup"), "\(outcome.lines)")
        }
        let unchanged = StorageTestDirectory.read(dir.log("t")) == bytes
        #expect(unchanged)

        // A whole header that names another table is what start-up refuses too.
        StorageTestDirectory.write(dir.log("t"), [])
        StorageTestDirectory.write(dir.data + "/u.log", log.bytes)
        unlink(dir.log("t"))
        let check = try DataDirectoryMaintenance.check(directory: dir.data)
        #expect(!check.serverCanStart && check.lines[0].contains("it names table 't', not 'u'"), "\(check.lines)")
    }

    @Test func checkAndRepairNeedTheServerStoppedAndADirectory() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        _ = try makeLog(dir)
        let storage = try dir.open(tuning: { var t = TableStorage.Tuning(); t.lockWaitMilliseconds = 10; return t }())
        defer { storage.close() }
        let locked = #expect(throws: StorageError.self) { try DataDirectoryMaintenance.repair(directory: dir.data) }
        #expect(locked?.kind == .locked && locked?.message.hasSuffix("; stop the server first") == true,
                "\(String(describing: locked))")
        let missing = #expect(throws: StorageError.self) { try DataDirectoryMaintenance.check(directory: dir.path + "/nope") }
        #expect(missing?.message == "no data directory here; name it with --data DIR")
    }
}

private func + (a: [String: JSONValue], b: [String: JSONValue]) -> [String: JSONValue] { a.merging(b) { $1 } }
