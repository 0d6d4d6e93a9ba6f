#if canImport(Glibc)
import Glibc
#endif
import TodoBasics
import TodoModel

/// The removal of many item files (`todo purge`, `todo table rm`) in commits of a batch each, so
/// that no commit holds one entry per item of a big table (issue 21: one commit of a million
/// removals held about 0.85 GB).
///
/// 1. Before its first commit, the command writes the paths it removes into lists of a batch each,
///    `.todo/removal/000000.json`, … (`add`). Nothing refers to them yet: a crash here leaves
///    leftovers that the next writer deletes, and the command did not happen.
/// 2. Its first commit holds the command's own changes (dropped operations and conflicts,
///    receipts, tokens) and the marker `.todo/removal/marker.json`: from here it has happened.
/// 3. Each list goes in a commit of its own, with its item files.
/// 4. For `table rm`, the table's numbers and its empty folders go; a last commit drops the marker.
///
/// Every writer finishes an open marker when it opens the store (`Recovery`), as it finishes a
/// journal, and readers have it finished (or wait for the writer that is finishing it) before they
/// read (`consistentRead`): no command shows a table half removed.
public final class ItemRemoval {
    /// What the marker says the removal is for.
    public enum Command: String, Sendable {
        case purge
        case tableRemoval = "table rm"
    }

    static let folder = "removal"
    static let markerFile = "removal/marker.json"

    let store: Store
    let command: Command
    let table: String
    /// The paths not yet in a list file.
    private var pending: [String] = []
    private var lists = 0
    private var committed = false
    /// How many item files the lists hold.
    public private(set) var count = 0

    public init(store: Store, command: Command, table: String) {
        precondition(store.isWritable, "removals need the store lock")
        self.store = store
        self.command = command
        self.table = table
    }

    /// Adds an item file (a path relative to `.todo/`) to remove; a full batch goes to its list.
    public func add(_ path: String) throws(StoreError) {
        pending.append(path)
        count += 1
        if pending.count >= max(1, store.itemBatchSize) { try writeList() }
    }

    /// Commits `transaction` with the marker (the command's commit point), then removes the
    /// listed files a batch a commit. A failure after the commit point is `.unfinished`: the
    /// change has happened, and the next command finishes it. Without any file to remove (a purge
    /// of an empty table) it is one plain commit.
    public func commit(_ transaction: StoreTransaction) throws(StoreError) {
        guard count > 0 || command == .tableRemoval else { return try store.commit(transaction) }
        if !pending.isEmpty { try writeList() }
        do { try store.fs.syncDirectory(store.layout.absolute(Self.folder)) } catch { throw .io(error) }
        var tx = transaction
        tx.put(Self.markerFile, ["format": .number(1), "command": .string(command.rawValue), "table": .string(table), "items": .number(Double(count))])
        do {
            try store.commit(tx)
        } catch .unfinished(let cause) {
            committed = true
            throw .unfinished(cause)
        }
        committed = true
        do {
            try Self.finish(store)
        } catch .unfinished(let cause) {
            throw .unfinished(cause)
        } catch .io(let cause) {
            throw .unfinished(cause)
        }
    }

    /// Deletes the lists of a command that stops before its commit point (a refusal, an error);
    /// harmless after it. Left undone, the next writer deletes them (`Recovery`).
    public func discard() {
        guard !committed, lists > 0 else { return }
        try? Self.removeLeftovers(store)
    }

    private func writeList() throws(StoreError) {
        let path = store.layout.absolute(Self.listFile(lists))
        let bytes = JSONValue.object(["paths": .array(pending.map { .string($0) })]).canonicalBytes()
        do {
            if lists == 0, !store.fs.isDirectory(store.layout.absolute(Self.folder)) {
                try store.fs.createDirectory(store.layout.absolute(Self.folder))
                try store.fs.syncDirectory(store.layout.root)
            }
            try AtomicFile.write(bytes, to: path, in: store.fs)
        } catch {
            throw .io(error)
        }
        lists += 1
        pending.removeAll(keepingCapacity: true)
    }

    static func listFile(_ number: Int) -> String { folder + "/" + pad(number, 6) + ".json" }
}

/// The marker of a removal that has happened but whose files are not all removed yet.
public struct PendingRemoval: Equatable, Sendable {
    public var command: ItemRemoval.Command
    public var table: String
    /// The item files the removal started with.
    public var items: Int
}

extension ItemRemoval {
    /// The open marker, if any (nil also when the store holds none).
    static func marker(_ store: Store) throws(StoreError) -> PendingRemoval? {
        try store.decode(markerFile) { json throws(RecordError) in
            let r = try RecordReader(json)
            _ = try FormatVersion.read(r, current: 1)
            let name = try r.string("command")
            guard let command = Command(rawValue: name) else { throw RecordError("\"command\" must be \"purge\" or \"table rm\"") }
            let table = try r.string("table")
            guard TableName.problem(table) == nil else { throw RecordError("\"table\" is not a table name: \"\(table)\"") }
            guard let items = r.object["items"]?.intValue, items >= 0 else { throw RecordError("\"items\" must be a count") }
            return PendingRemoval(command: command, table: table, items: items)
        }
    }

    /// Finishes an open removal (`Recovery`, and the command itself after its commit point): each
    /// list in a commit of its own, then for `table rm` the table's numbers and empty folders,
    /// then the marker. Each step can be repeated, so a crash anywhere is finished by the next
    /// writer. Without a marker, lists left by a command that died before its commit point go.
    static func finish(_ store: Store) throws(StoreError) {
        guard store.fs.isDirectory(store.layout.absolute(folder)) else { return }
        guard let marker = try marker(store) else { return try removeLeftovers(store) }
        let items = store.layout.itemsDirectory(marker.table) + "/"
        for name in try store.list(folder).sorted() where name != "marker.json" {
            let list = folder + "/" + name
            let paths = try store.decode(list) { json throws(RecordError) -> [String] in
                guard let array = json.objectValue?["paths"]?.arrayValue else { throw RecordError("expected {\"paths\": [...]}") }
                var paths: [String] = []
                for value in array {
                    // A list is a file a user could edit: it never removes anything but an item file of its table.
                    guard let path = value.stringValue, path.hasPrefix(items), path.hasSuffix(".json"),
                          !path.dropFirst(items.utf8.count).contains("/"), Recovery.isSafeRelativePath(path) else {
                        throw RecordError("\(value.compactText) is not an item file of table \(marker.table)")
                    }
                    paths.append(path)
                }
                return paths
            } ?? []
            var tx = try store.transaction()
            tx.numbersTables = false
            for path in paths { tx.remove(path) }
            tx.remove(list)
            try store.commit(tx)
        }
        var tx = try store.transaction()
        if marker.command == .tableRemoval {
            // The numbers go last: a commit that removes items from a table without numbers would number the rest.
            try store.removeItemNumbers(table: marker.table, in: &tx)
            try store.commit(tx)
            tx = try store.transaction()
            do {
                try store.removeEmptyTableFolders(marker.table)
            } catch .io(let error) where error.code == ENOTEMPTY {
                // A file of the user's in the folder must not stop every later command: the folder
                // stays, and `doctor` names the file.
            }
        }
        tx.remove(markerFile)
        try store.commit(tx)
        do { try store.fs.removeDirectory(store.layout.absolute(folder)) } catch { throw .io(error) }
    }

    /// Deletes the lists of a removal that never reached its commit point.
    static func removeLeftovers(_ store: Store) throws(StoreError) {
        let dir = store.layout.absolute(folder)
        do {
            guard let names = try store.fs.listDirectory(dir) else { return }
            for name in names { try store.fs.removeFile(dir.appendingPath(name)) }
            try store.fs.removeDirectory(dir)
            try store.fs.syncDirectory(store.layout.root)
        } catch {
            throw .io(error)
        }
    }
}
