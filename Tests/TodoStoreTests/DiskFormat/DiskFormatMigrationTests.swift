import Testing
import TodoModel
@testable import TodoStore

/// The migration seam of `DiskRecord`: a file of an older format is brought to the current one by
/// its kind's `migrate` before it is read; the current format is read as it is; a newer one is
/// refused. Today every kind is at format 1, so the seam is shown on a kind made for the test:
/// a note whose format 2 renamed `body` to `text`.
@Suite struct DiskFormatMigrationTests {
    struct Note: Equatable { var text: String }

    struct NoteFile: DiskRecord {
        static let format = 2
        var value: Note
        init(_ value: Note) { self.value = value }
        var json: JSONValue { ["format": .number(Double(Self.format)), "text": .string(value.text)] }
        init(current record: RecordReader) throws(RecordError) { value = Note(text: try record.string("text")) }

        static func migrate(_ members: [String: JSONValue], from format: Int) throws(RecordError) -> [String: JSONValue] {
            var m = members
            m["text"] = m.removeValue(forKey: "body")
            return m
        }
    }

    @Test func anOlderFormatIsMigratedBeforeItIsRead() throws {
        #expect(try NoteFile(json: ["format": 1, "body": "milk"]).value == Note(text: "milk"))
        #expect(try NoteFile(json: ["format": 2, "text": "milk"]).value == Note(text: "milk"))
        #expect(throws: RecordError("\"text\" is missing"), "format 2 is read as it is, not migrated") {
            try NoteFile(json: ["format": 2, "body": "milk"])
        }
    }

    @Test func aNewerFormatIsRefusedNamingTheFormatsItReads() {
        #expect(throws: RecordError("\"format\" is 3; this version of todo reads formats 1 to 2")) {
            try NoteFile(json: ["format": 3, "text": "milk"])
        }
        #expect(throws: RecordError("\"format\" is 0; this version of todo reads formats 1 to 2")) {
            try NoteFile(json: ["format": 0, "body": "milk"])
        }
    }
}
