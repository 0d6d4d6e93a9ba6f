import TodoModel

/// The first record of every table log: which table, its settings, and where its counters stood
/// when the file was started (so a compacted log still remembers stamps of rows it no longer holds).
struct TableLogHeader: Equatable {
    static let format = "todo-table-log"
    static let formatVersion = 1

    var table: String
    var softDelete: Bool
    var lastVersion: UInt64
    var lastUpdatedAt: Int64
    /// Written only when not `.string`, so that the logs of string-id tables keep the bytes of
    /// format 1 as it was, and logs written before it (without the member) open as string-id tables.
    var idType: TableIDType = .string
    /// `autoIncrement` tables: the largest id ever handed out, kept by compaction (which drops rows
    /// deleted for good), so an id is never handed out twice.
    var lastID: UInt64 = 0

    /// The table as the header describes it, before the records after it are applied.
    func memory() -> TableMemory {
        TableMemory(schema: TableSchema(name: table, softDelete: softDelete, idType: idType),
                    lastVersion: lastVersion, lastUpdatedAt: lastUpdatedAt, lastID: lastID)
    }
}

/// A (version, updatedAt) pair handed out by `TableWrite.nextStamp()`.
struct TableStamp: Equatable {
    var version: UInt64
    var updatedAt: Int64
}

/// Everything one `write` changed: the unit of atomicity. A record is applied whole or not at all.
struct TableCommit: Equatable {
    /// The last stamp the write took; recorded even when no row carries it (hard deletes).
    var stamp: TableStamp?
    var columns: [(String, ColumnType?)] = []
    var puts: [StoredRow] = []
    /// Ids (any spelling) of rows removed by a hard delete.
    var removals: [String] = []

    var isEmpty: Bool { stamp == nil && columns.isEmpty && puts.isEmpty && removals.isEmpty }

    static func == (a: TableCommit, b: TableCommit) -> Bool {
        a.stamp == b.stamp && a.puts == b.puts && a.removals == b.removals
            && a.columns.map(\.0) == b.columns.map(\.0) && a.columns.map(\.1) == b.columns.map(\.1)
    }
}

enum TableLogRecord: Equatable {
    case header(TableLogHeader)
    case commit(TableCommit)
}

// MARK: - Encoding

/// JSON of one record, written by hand around `JSONValue`'s writer so integers are exact decimal text
/// and member order is fixed (sorted), making equal records byte-identical.
enum TableLogCoder {
    /// Integers beyond this cannot round-trip through the JSON parser's doubles.
    static let maximumInteger: Int64 = 9_007_199_254_740_992

    static func encode(_ record: TableLogRecord) throws(StorageError) -> [UInt8] {
        var w = RecordWriter()
        switch record {
        case .header(let h):
            w.raw(#"{"format":"#); w.string(TableLogHeader.format)
            w.raw(#","formatVersion":"#); try w.integer(TableLogHeader.formatVersion)
            if h.idType != .string {
                w.raw(#","idType":"#); w.string(h.idType.rawValue)
                w.raw(#","lastId":"#); try w.integer(h.lastID)
            }
            w.raw(#","lastUpdatedAt":"#); try w.integer(h.lastUpdatedAt)
            w.raw(#","lastVersion":"#); try w.integer(h.lastVersion)
            w.raw(#","softDelete":"#); w.bool(h.softDelete)
            w.raw(#","table":"#); w.string(h.table)
            w.raw("}")
        case .commit(let c):
            w.raw("{")
            var first = true
            func member(_ name: StaticString) {
                w.raw(first ? "\"" : ",\"")
                w.raw(name)
                w.raw("\":")
                first = false
            }
            if !c.columns.isEmpty {
                member("columns")
                var types: [String: JSONValue] = [:]
                for (name, type) in c.columns { types[name] = type.map { .string($0.rawValue) } ?? .null }
                w.json(.object(types))
            }
            if !c.removals.isEmpty {
                member("delete")
                w.json(.array(c.removals.map { .string($0) }))
            }
            if !c.puts.isEmpty {
                member("put")
                w.raw("[")
                for (i, row) in c.puts.enumerated() {
                    if i > 0 { w.raw(",") }
                    try encodeRow(row, &w)
                }
                w.raw("]")
            }
            if let s = c.stamp {
                member("stamp")
                w.raw(#"{"updatedAt":"#); try w.integer(s.updatedAt)
                w.raw(#","version":"#); try w.integer(s.version)
                w.raw("}")
            }
            w.raw("}")
        }
        return w.bytes
    }

    private static func encodeRow(_ row: StoredRow, _ w: inout RecordWriter) throws(StorageError) {
        w.raw(#"{"createdAt":"#); try w.integer(row.createdAt)
        w.raw(#","deleted":"#); w.bool(row.deleted)
        w.raw(#","id":"#); w.string(row.id)
        w.raw(#","updatedAt":"#); try w.integer(row.updatedAt)
        w.raw(#","values":"#); w.object(row.columns)
        w.raw(#","version":"#); try w.integer(row.version)
        w.raw("}")
    }
}

/// Appends JSON pieces to a byte buffer.
private struct RecordWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func raw(_ text: StaticString) { text.withUTF8Buffer { bytes.append(contentsOf: $0) } }
    // Written in place (no temporary arrays or strings per piece): every insert encodes a record.
    mutating func string(_ s: String) { JSONText.appendString(s, to: &bytes) }
    mutating func json(_ value: JSONValue) { JSONText.appendValue(value, to: &bytes) }

    /// What `json(.object(members))` writes (members sorted by their UTF-8 bytes), without the
    /// writer's generic key sort and a lookup per key.
    mutating func object(_ members: [String: JSONValue]) {
        bytes.append(UInt8(ascii: "{"))
        for (i, member) in members.sorted(by: { UTF8Bytes.less($0.key, $1.key) }).enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendString(member.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONText.appendValue(member.value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
    mutating func bool(_ b: Bool) { raw(b ? "true" : "false") }

    /// The decimal text `String(value)` gives.
    mutating func integer(_ value: some BinaryInteger) throws(StorageError) {
        guard value <= TableLogCoder.maximumInteger && value >= -TableLogCoder.maximumInteger else {
            throw StorageError(.invalidValue, "\(value) is beyond ±2^53 and cannot be stored exactly")
        }
        let number = Int64(value)
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var rest = number.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes.withUnsafeMutableBufferPointer { $0[start...].reverse() }
    }
}
