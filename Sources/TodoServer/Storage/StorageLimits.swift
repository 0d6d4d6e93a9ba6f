import TodoModel

/// How much the storage may hold (issue 17): the operator's options, with defaults that suit a
/// server for a few hundred users on a small machine.
///
/// Why: every table and every row lives in memory, and with `--dynamic-tables` any client could
/// create tables and rows until the process ran out of memory or file descriptors. A write that
/// would cross a limit changes nothing and is refused with a message naming the limit and its option
/// (`StorageQuota`); writes that shrink or keep what is stored (updates that do not grow a row,
/// deletes) always go through, so a full server can still be cleaned up. Data already on disk is
/// always loaded, even when it is above lowered limits: limits stop growth, never reads or start-up.
public struct StorageLimits: Sendable, Equatable {
    /// Tables, created at start or by inserts (`--max-tables`).
    public var maxTables = 1_000
    /// Rows in one table, soft-deleted ones included: they are held in memory too (`--max-rows-per-table`).
    public var maxRowsPerTable = 1_000_000
    /// One row's size as `RowFootprint.dataBytes` counts it (`--max-row-size`). The default is the
    /// protocol's body limit, since an item of 1,000,000 bytes must be accepted (checklist 21);
    /// what it stops is a row grown past it by updates.
    public var maxRowBytes = 1 << 20
    /// The estimated memory of all rows of all tables, `RowFootprint.memoryBytes` (`--max-memory`).
    public var memoryBudget = 1 << 30

    public init() {}
}

/// What a row costs: its size for the row limit, and an estimate of the memory it holds.
///
/// The memory estimate was fitted to the resident memory of the release server (VmRSS, 20,000 rows
/// each): 10 bytes in 1 column took 449 bytes per row (estimate 466), 1,000 bytes in 1 column 1,527
/// (1,518), 1,000 bytes in 10 columns 2,614 (2,542), 4,000 bytes in 4 columns 5,057 (5,046), 200
/// bytes in 5 columns 1,173 (1,122): within 5%. It counts what the row holds, not what it looked
/// like on the wire, and it is computed from the row alone, so the same row always counts the same
/// (adding and removing it cancel exactly).
enum RowFootprint {
    /// The row's share of the dictionaries and indexes, and its fixed fields.
    static let rowOverhead = 320
    /// A column's entry in the row's dictionary and its value's header.
    static let columnOverhead = 112

    /// The UTF-8 bytes of the id, the column names and the string values, plus 8 per number and
    /// 1 per boolean: what `--max-row-size` limits.
    static func dataBytes(_ row: StoredRow) -> Int {
        var total = row.id.utf8.count
        for (name, value) in row.columns { total += name.utf8.count + valueBytes(value) }
        return total
    }

    /// Estimated resident memory of the row: what `--max-memory` adds up.
    static func memoryBytes(_ row: StoredRow) -> Int {
        var total = rowOverhead + 2 * row.id.utf8.count  // the id, and its lower-case key
        for (name, value) in row.columns {
            let bytes = valueBytes(value)
            total += columnOverhead + name.utf8.count + bytes + (bytes >> 4)  // strings' allocation slack
        }
        return total
    }

    private static func valueBytes(_ value: JSONValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .number: 8
        case .bool: 1
        default: 0
        }
    }
}

/// `1.5 MiB`, `64 KiB`, `1 GiB`, `200 bytes`: sizes in messages.
enum ByteCount {
    static func text(_ bytes: Int) -> String {
        let units = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (size, unit) in units where bytes >= size {
            let tenths = (bytes * 10 + size / 2) / size
            return tenths % 10 == 0 ? "\(tenths / 10) \(unit)" : "\(tenths / 10).\(tenths % 10) \(unit)"
        }
        return "\(bytes) bytes"
    }

    /// `64K`, `512M`, `1G`, `1000` (bytes): the options' syntax (binary units). Nil when invalid.
    static func parse(_ text: String) -> Int? {
        guard let last = text.last else { return nil }
        let shifts: [Character: Int] = ["k": 10, "K": 10, "m": 20, "M": 20, "g": 30, "G": 30]
        let shift = shifts[last] ?? 0
        let digits = shifts[last] == nil ? text : String(text.dropLast())
        guard let n = Int(digits), n > 0, n <= (Int.max >> 31) else { return nil }
        return n << shift
    }
}
