import Testing
import TodoBasics
import TodoModel
@testable import TodoStore

/// Issue 21 item 3: a change added to `undo.json` as bytes (`UndoAppend`) gives the file
/// `UndoFile` writes for the same log; a file laid out otherwise is left to the decoder.
@Suite struct UndoAppendTests {
    static func record(_ n: Int) -> UndoRecord {
        let item = Item(id: "id-\(n)", fields: ["text": .string("item \"\(n)\" {with} [brackets] \\ and more")])
        let op = PendingOperation(sequence: n, table: "todoitem", id: "id-\(n)", kind: .insert, item: item, base: nil,
                                  queuedAt: "2024-05-01T09:00:01.000Z")
        return UndoRecord(command: "add", at: "2024-05-01T09:00:0\(n % 10).000Z", table: "todoitem", id: "id-\(n)",
                          before: ItemState(item: nil, operations: []), after: ItemState(item: item, operations: [op]))
    }

    @Test func appendsAsTheEncoderWrites() throws {
        var log = UndoLog()
        for n in 0..<(UndoLog.limit + 5) {
            let bytes = UndoFile(log).json.canonicalBytes()
            let next = log.adding(Self.record(n))
            #expect(UndoAppend.appending(Self.record(n), to: bytes) == UndoFile(next).json.canonicalBytes(), "after \(n) changes")
            log = next
        }
        #expect(log.records.count == UndoLog.limit)
    }

    @Test func leavesOtherLayoutsToTheDecoder() {
        let good = UndoFile(UndoLog(records: [Self.record(1)])).json.canonicalBytes()
        #expect(UndoAppend.changes(good)?.count == 1)
        for bytes in [Array(good.dropLast()), good.compactRewritten, Array("{\"changes\": [], \"format\": 1}".utf8), Array("[]".utf8),
                      good.formatTwo, []] {
            #expect(UndoAppend.appending(Self.record(2), to: bytes) == nil, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}

private extension Array where Element == UInt8 {
    var compactRewritten: [UInt8] { ((try? JSONValue.parse(self))?.compactBytes()) ?? [] }
    /// The same file with `"format": 2` (its last bytes are `1\n}\n`).
    var formatTwo: [UInt8] {
        var bytes = self
        bytes[bytes.count - 4] = UInt8(ascii: "2")
        return bytes
    }
}
