import Testing
import TodoModel
@testable import TodoServer

/// The log encoder writes integers, strings and row values itself; its bytes must stay those of
/// the JSON writer (the log format is fixed, and equal records must be byte-identical).
@Suite struct TableLogEncodingTests {
    private func text(_ record: TableLogRecord) throws -> String {
        String(decoding: try TableLogCoder.encode(record), as: UTF8.self)
    }

    @Test func integersAreTheirDecimalText() throws {
        for value: Int64 in [0, 1, -1, 9, 10, -10, 99, 100, 1_234_567_890_123, -9_007_199_254_740_992, 9_007_199_254_740_992] {
            let header = TableLogHeader(table: "t", softDelete: false, lastVersion: UInt64(value.magnitude), lastUpdatedAt: value)
            #expect(try text(.header(header)) == #"{"format":"todo-table-log","formatVersion":1,"lastUpdatedAt":"#
                + String(value) + #","lastVersion":"# + String(value.magnitude) + #","softDelete":false,"table":"t"}"#)
        }
        let tooLarge = TableLogHeader(table: "t", softDelete: false, lastVersion: 9_007_199_254_740_993, lastUpdatedAt: 0)
        #expect(storageError { try TableLogCoder.encode(.header(tooLarge)) } == .invalidValue)
        let tooSmall = TableLogHeader(table: "t", softDelete: false, lastVersion: 0, lastUpdatedAt: -9_007_199_254_740_993)
        #expect(storageError { try TableLogCoder.encode(.header(tooSmall)) } == .invalidValue)
    }

    @Test func rowsAreWrittenAsTheJSONWriterWritesThem() throws {
        let columns: [String: JSONValue] = [
            "text": .string("quote \" backslash \\ newline \n tab \t nul \u{0} é 😀"), "Zed": .number(-0.5),
            "b": .bool(true), "a": .null, "n": .number(12), "\u{e9}": .string(""),
            "_": .number(1e300),
        ]
        let row = StoredRow(id: "Id \"with\" é", columns: columns, createdAt: -1, updatedAt: 1_700_000_000_000,
                            version: 42, deleted: true)
        var commit = TableCommit(stamp: TableStamp(version: 42, updatedAt: 1_700_000_000_000))
        commit.columns = [("a", nil), ("text", .string)]
        commit.puts = [row, StoredRow(id: "x", columns: [:], createdAt: 0, updatedAt: 0, version: 1)]
        commit.removals = ["gone", "\u{1}"]
        let types = JSONValue.object(["text": .string("string"), "a": .null]).compactText
        let removals = JSONValue.array([.string("gone"), .string("\u{1}")]).compactText
        let expected = #"{"columns":"# + types + #","delete":"# + removals + #","put":[{"createdAt":-1,"deleted":true,"id":"#
            + JSONValue.string(row.id).compactText + #","updatedAt":1700000000000,"values":"# + JSONValue.object(columns).compactText
            + #","version":42},{"createdAt":0,"deleted":false,"id":"x","updatedAt":0,"values":{},"version":1}],"#
            + #""stamp":{"updatedAt":1700000000000,"version":42}}"#
        #expect(try text(.commit(commit)) == expected)
        let encoded = try TableLogCoder.encode(.commit(commit))
        #expect(try TableLogCoder.encode(.commit(TableLogDecoder.commit(encoded[...]))) == encoded, "decodes to the same record")
    }
}
