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
    public static let tablesDirectory = "tables"
    public static let operationsDirectory = "operations"
    public static let conflictsDirectory = "conflicts"
    public static let receiptsDirectory = "receipts"

    public func absolute(_ relative: String) -> String { root.appendingPath(relative) }

    public func tableDirectory(_ table: String) -> String { "tables/\(table)" }
    public func tableConfig(_ table: String) -> String { "tables/\(table)/table.json" }
    public func itemsDirectory(_ table: String) -> String { "tables/\(table)/items" }
    public func item(_ table: String, _ id: String) -> String { "tables/\(table)/items/\(IDEncoding.fileName(for: id)).json" }

    public func operation(_ op: PendingOperation) -> String {
        "operations/" + OperationFileName(sequence: op.sequence, kind: op.kind, table: op.table,
                                          encodedID: IDEncoding.fileName(for: op.id)).name
    }
    public func conflict(_ table: String, _ id: String) -> String {
        "conflicts/\(table).\(IDEncoding.fileName(for: id)).json"
    }
    public func receipt(_ r: Receipt) -> String {
        "receipts/\(pad(r.number, 10)).\(r.decision.rawValue).\(r.table).\(IDEncoding.fileName(for: r.id)).json"
    }

    /// Names of files a writer may leave behind when it is killed mid-write (`AtomicFile`).
    public static func isTemporary(_ name: String) -> Bool { name.hasPrefix(".") && name.hasSuffix(".tmp") }
}

/// `<sequence>.<kind>.<table>.<enc>.json`: the queue order and what an operation touches, readable
/// by `ls` and by `todo status` without opening the file.
public struct OperationFileName: Sendable, Equatable {
    public var sequence: Int
    public var kind: PendingOperation.Kind
    public var table: String
    public var encodedID: String

    public init(sequence: Int, kind: PendingOperation.Kind, table: String, encodedID: String) {
        self.sequence = sequence
        self.kind = kind
        self.table = table
        self.encodedID = encodedID
    }

    public var name: String { "\(pad(sequence, 10)).\(kind.rawValue).\(table).\(encodedID).json" }

    public init?(parsing name: String) {
        guard name.hasSuffix(".json") else { return nil }
        let parts = name.dropLast(5).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let seq = Int(parts[0]), seq >= 1, let kind = PendingOperation.Kind(rawValue: String(parts[1]))
        else { return nil }
        self.init(sequence: seq, kind: kind, table: String(parts[2]), encodedID: String(parts[3]))
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
