import TodoBasics
import TodoModel

/// Every path of the `.todo` directory, and nothing else knows them (see README "The .todo format").
///
/// Paths inside the store are relative (`operations/0000000042.update.todoitem.abc.json`) so the
/// journal stays valid if the folder is moved; `absolute(_:)` joins them to the root.
public struct StoreLayout: Sendable {
    /// The `.todo` directory itself.
    public let root: String

    public init(root: String) { self.root = root }

    public static let directoryName = ".todo"
    public static let formatFile = "format.json"
    public static let configFile = "config.json"
    public static let stateFile = "state.json"
    public static let lockFile = "lock"
    public static let journalFile = "journal.json"
    /// The last local changes, for `todo undo` (`UndoLog`).
    public static let undoFile = "undo.json"
    /// The remote's tables at the last `pull --all-tables` (`ServerTableList`).
    public static let serverTablesFile = "server-tables.json"
    public static let tablesDirectory = "tables"
    public static let operationsDirectory = "operations"
    public static let conflictsDirectory = "conflicts"
    public static let receiptsDirectory = "receipts"
    /// Derived data that can be deleted at any time (`ItemStampCache`).
    public static let cacheDirectory = "cache"
    public static let itemStampsFile = "cache/item-stamps"

    public func absolute(_ relative: String) -> String { root.appendingPath(relative) }

    public func tableDirectory(_ table: String) -> String { "tables/\(table)" }
    public func tableConfig(_ table: String) -> String { "tables/\(table)/table.json" }
    public func itemsDirectory(_ table: String) -> String { "tables/\(table)/items" }
    /// `tables/<table>/items/<enc>.json`, joined in one buffer: a push builds each item's path
    /// three times, and the string interpolation cost ~2,000 instructions a path.
    public func item(_ table: String, _ id: String) -> String {
        let name = IDEncoding.fileName(for: id)
        var out: [UInt8] = []
        out.reserveCapacity(table.utf8.count + name.utf8.count + 19)
        out.append(contentsOf: "tables/".utf8)
        out.append(contentsOf: table.utf8)
        out.append(contentsOf: "/items/".utf8)
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: ".json".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    public func operation(_ op: PendingOperation) -> String {
        OperationFileName.format(op.sequence, op.kind, op.table, IDEncoding.fileName(for: op.id), prefix: "operations/")
    }
    public func conflict(_ table: String, _ id: String) -> String {
        "conflicts/\(table).\(IDEncoding.fileName(for: id)).json"
    }
    public func receipt(_ r: Receipt) -> String {
        "receipts/\(pad(r.number, 10)).\(r.decision.rawValue).\(r.table).\(IDEncoding.fileName(for: r.id)).json"
    }

    /// Names of files a writer may leave behind when it is killed mid-write (`AtomicFile`).
    public static func isTemporary(_ name: String) -> Bool { name.hasPrefix(".") && name.hasSuffix(".tmp") }

    /// Hidden files (todo's temp files, `.x.swp`, Emacs' `.#x` locks) and what editors and people
    /// leave beside a file they edit: `x~`, `x.bak`, `x.orig`, `x.swp`, `x.tmp`. Never records.
    public static func isLeftover(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasSuffix("~")
            || [".bak", ".orig", ".swp", ".tmp"].contains { name.hasSuffix($0) }
    }
}

/// `<sequence>.<kind>.<table>.<enc>.json`: the queue order and what an operation touches, readable
/// by `ls` and by `todo status` without opening the file.
public struct OperationFileName: Sendable, Equatable {
    public var sequence: Int { didSet { listedName = nil } }
    public var kind: PendingOperation.Kind { didSet { listedName = nil } }
    public var table: String { didSet { listedName = nil } }
    public var encodedID: String { didSet { listedName = nil } }
    /// The parsed name when it is exactly what `name` would format (a 10-digit sequence): a push
    /// reads 10,000 files and need not format each name again.
    private var listedName: String?

    public init(sequence: Int, kind: PendingOperation.Kind, table: String, encodedID: String) {
        self.sequence = sequence
        self.kind = kind
        self.table = table
        self.encodedID = encodedID
    }

    public var name: String { listedName ?? Self.format(sequence, kind, table, encodedID) }

    /// `prefix` + `pad(sequence, 10).kind.table.encodedID.json`, built in one byte buffer: a
    /// push names each op's file two or three times, and the string interpolation and the join
    /// to `operations/` cost ~6,500 instructions a name.
    static func format(_ sequence: Int, _ kind: PendingOperation.Kind, _ table: String, _ encodedID: String,
                       prefix: StaticString = "") -> String {
        guard sequence >= 0 else { return "\(prefix)\(pad(sequence, 10)).\(kind.rawValue).\(table).\(encodedID).json" }
        var digitCount = 1
        var rest = sequence / 10
        while rest > 0 { digitCount += 1; rest /= 10 }
        let width = max(10, digitCount)
        var out: [UInt8] = []
        out.reserveCapacity(prefix.utf8CodeUnitCount + width + table.utf8.count + encodedID.utf8.count + 16)
        out.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        let digitsEnd = out.count + width
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var index = digitsEnd - 1
        rest = sequence
        repeat {
            out[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        } while rest > 0
        out.append(UInt8(ascii: "."))
        out.append(contentsOf: kind.rawValue.utf8)
        out.append(UInt8(ascii: "."))
        out.append(contentsOf: table.utf8)
        out.append(UInt8(ascii: "."))
        out.append(contentsOf: encodedID.utf8)
        out.append(contentsOf: ".json".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// Equal when they name the same operation; the kept name is only a cache.
    public static func == (a: OperationFileName, b: OperationFileName) -> Bool {
        a.sequence == b.sequence && a.kind == b.kind && a.table == b.table && a.encodedID == b.encodedID
    }

    /// Accepts exactly what `split` on `Character`s and `Int(_:)` accept. ASCII names (all that
    /// `todo` writes) are parsed on bytes, many times cheaper; others keep the `Character` rules,
    /// under which a `.` followed by a combining mark is no separator.
    public init?(parsing name: String) {
        var bytes = name  // withUTF8 is mutating; a native string is not copied
        let isASCII = bytes.withUTF8 { !$0.contains { $0 >= 0x80 } }
        guard let fields = isASCII ? bytes.withUTF8(Self.parseASCII) : Self.parseCharacters(name) else { return nil }
        self.init(sequence: fields.sequence, kind: fields.kind, table: fields.table, encodedID: fields.encodedID)
        if fields.canonical { listedName = name }
    }

    /// `canonical`: the name is what `name` formats, so it can be kept.
    private typealias Fields = (sequence: Int, kind: PendingOperation.Kind, table: String, encodedID: String, canonical: Bool)

    /// In ASCII text every byte is a `Character` of its own (but CR LF, which holds no dot), so
    /// byte rules give the same answers as the `Character` ones.
    private static func parseASCII(_ b: UnsafeBufferPointer<UInt8>) -> Fields? {
        let end = b.count - 5
        guard end >= 0, b[end] == UInt8(ascii: "."), b[end + 1] == UInt8(ascii: "j"), b[end + 2] == UInt8(ascii: "s"),
              b[end + 3] == UInt8(ascii: "o"), b[end + 4] == UInt8(ascii: "n")
        else { return nil }
        func dot(from start: Int) -> Int? {
            var i = start
            while i < end, b[i] != UInt8(ascii: ".") { i += 1 }
            return i < end ? i : nil
        }
        guard let d1 = dot(from: 0), let d2 = dot(from: d1 + 1), let d3 = dot(from: d2 + 1), dot(from: d3 + 1) == nil,
              let seq = integer(UnsafeBufferPointer(rebasing: b[0..<d1])), seq >= 1,
              let kind = PendingOperation.Kind(rawValue: text(b, d1 + 1, d2))
        else { return nil }
        return (seq, kind, text(b, d2 + 1, d3), text(b, d3 + 1, end), d1 == 10 && b[0] != UInt8(ascii: "+"))
    }

    private static func text(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[from..<to]), as: UTF8.self)
    }

    /// `Int(_:)` on ASCII bytes: an optional sign, then one or more digits; nil when out of range.
    private static func integer(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = b.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        let digits = first == UInt8(ascii: "+") || negative ? UnsafeBufferPointer(rebasing: b.dropFirst()) : b
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(Int(digit)) : times10.addingReportingOverflow(Int(digit))
            guard !o1, !o2 else { return nil }
            value = next
        }
        return value
    }

    /// The `Character`-based rules, for names with non-ASCII text.
    private static func parseCharacters(_ name: String) -> Fields? {
        guard name.hasSuffix(".json") else { return nil }
        let parts = name.dropLast(5).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let seq = Int(parts[0]), seq >= 1, let kind = PendingOperation.Kind(rawValue: String(parts[1]))
        else { return nil }
        return (seq, kind, String(parts[2]), String(parts[3]), false)
    }
}

/// `<table>.<enc>.json` in `conflicts/`.
public struct ConflictFileName: Sendable, Equatable {
    public var table: String
    public var encodedID: String

    public init?(parsing name: String) {
        guard name.hasSuffix(".json") else { return nil }
        let parts = name.dropLast(5).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        table = String(parts[0])
        encodedID = String(parts[1])
    }
}

func pad(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}
