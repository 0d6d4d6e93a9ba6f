import Testing
import TodoBasics
import TodoModel
@testable import TodoServer

/// Issue 17 item 3: a damaged acknowledged record stops start-up; only a torn tail (a record cut
/// short at the very end, without its newline: a crash during an append) is cut off.
@Suite struct StorageBitRotTests {
    /// Three rows, then a fourth whose record is the last line of the log.
    func makeLog(_ dir: StorageTestDirectory) throws -> (first: [StoredRow], last: StoredRow, lastStart: Int) {
        let storage = try dir.open()
        defer { storage.close() }
        try storage.createTable("t", softDelete: true)
        for i in 0..<3 { try storage.putTestRow("t", "r\(i)", ["text": .string("row \(i)")]) }
        let first = try storage.allRows("t")
        let lastStart = StorageTestDirectory.read(dir.log("t")).count
        let last = try storage.putTestRow("t", "last", ["text": "the last one", "n": 4])
        return (first, last, lastStart)
    }

    @Test func aDamagedByteAnywhereInTheLastRecordStopsStartUpNamingFileAndOffset() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let (_, _, lastStart) = try makeLog(dir)
        let whole = StorageTestDirectory.read(dir.log("t"))
        for index in lastStart..<(whole.count - 1) {  // every byte but the final newline
            var damaged = whole
            damaged[index] ^= 0x01
            StorageTestDirectory.write(dir.log("t"), damaged)
            let error = #expect(throws: StorageError.self, "byte \(index)") { try dir.open() }
            #expect(error?.kind == .corrupt && error?.path == dir.log("t") && error?.offset == lastStart, "byte \(index)")
            #expect(error?.description.contains("'\(dir.log("t"))' at byte \(lastStart)") == true, "byte \(index)")
            #expect(error?.description.contains("run: todo-server repair --data '\(dir.data)' to keep") == true,
                    "\(String(describing: error))")
            let unchanged = StorageTestDirectory.read(dir.log("t")) == damaged
            #expect(unchanged, "byte \(index): the log was changed")
        }
    }

    /// What today's code did: drop the damaged row, then hand its version out again.
    @Test func theVersionOfADamagedLastRecordIsNotHandedOutAgain() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let (first, last, lastStart) = try makeLog(dir)
        var damaged = StorageTestDirectory.read(dir.log("t"))
        damaged[lastStart + 20] ^= 0x01
        StorageTestDirectory.write(dir.log("t"), damaged)
        if let storage = try? dir.open() {
            defer { storage.close() }
            #expect(try storage.allRows("t") == first + [last], "the damaged row was dropped")
            #expect(try storage.putTestRow("t", "new").version > last.version, "a version was reused")
        }
    }

    @Test func aCompleteLineThatIsNotARecordIsDamageButALineWithoutItsNewlineIsATornTail() throws {
        let dir = StorageTestDirectory()
        defer { dir.remove() }
        let (first, last, lastStart) = try makeLog(dir)
        let whole = StorageTestDirectory.read(dir.log("t"))
        let damagedTails: [[UInt8]] = [
            whole + Array("\n".utf8),
            whole + [UInt8](repeating: 0, count: 100) + Array("\n".utf8),  // NULs then a newline
            Array(whole[..<lastStart]) + Array("00000000 {}\n".utf8),
        ]
        for (i, bytes) in damagedTails.enumerated() {
            StorageTestDirectory.write(dir.log("t"), bytes)
            let error = #expect(throws: StorageError.self, "tail \(i)") { try dir.open() }
            #expect(error?.kind == .corrupt, "tail \(i)")
        }
        let tornTails: [[UInt8]] = [
            whole + [UInt8](repeating: 0, count: 4096),  // the size grew, the data never landed
            whole + Array(whole[lastStart..<(whole.count - 1)]),  // a record without its newline
            whole + Array("0123abcd {\"put\":[".utf8),
        ]
        for (i, bytes) in tornTails.enumerated() {
            StorageTestDirectory.write(dir.log("t"), bytes)
            let storage = try dir.open()
            #expect(try storage.allRows("t") == first + [last], "tail \(i)")
            storage.close()
        }
    }
}
