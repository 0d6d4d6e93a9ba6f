import TodoBasics
import TodoModel

/// Short, stable numbers for items, per replica and per table (as Taskwarrior's ids): `todo done
/// 12` instead of a UUID (issue 19). Replica state, not a cache: committed with the change that
/// gives them, in the same journal.
///
/// `.todo/tables/<table>/numbers/` (README "The .todo format"):
/// - `next`: `{"next": N}`, the number the next new item gets.
/// - `000000`, `000001`, …: `{"numbers": {"1": key, …}}`, the numbers `256·k` to `256·k + 255`
///   and the (lower-case) ids they were given to. A new item rewrites one such file of at most
///   256 entries and `next`, never a table of them all.
///
/// Rules: an item gets the next number when its file first appears on this replica (`add`, a
/// pull, a clone, a restored conflict), in the commit that writes the file. A number is never
/// given twice: when the item is deleted its number is retired, still naming the old id (so
/// `todo diff 12` finds the pending delete), and an id that comes back later gets a new number.
/// Reusing numbers, as Taskwarrior does after a garbage collection, would make `todo done 12`
/// typed from an old listing touch another item. A table numbered before numbers existed is
/// numbered in id order by its first commit that changes an item.
public enum ItemNumbers {
    static let perFile = 256

    static func folder(_ layout: StoreLayout, _ table: String) -> String { layout.tableDirectory(table) + "/numbers" }
    static func nextFile(_ layout: StoreLayout, _ table: String) -> String { folder(layout, table) + "/next" }
    static func file(_ layout: StoreLayout, _ table: String, number: Int) -> String {
        folder(layout, table) + "/" + pad(number / perFile, 6)
    }

    /// A bare decimal number as people type it (`12`, not `012` or `+12`), or nil.
    public static func parse(_ text: String) -> Int? {
        guard let first = text.utf8.first, first != UInt8(ascii: "0"), text.utf8.count <= 18,
              text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }

    static func numbersJSON(_ numbers: [Int: String]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (n, key) in numbers { object[String(n)] = .string(key) }
        return ["numbers": .object(object)]
    }

    static func parseNumbers(_ value: JSONValue) throws(RecordError) -> [Int: String] {
        guard case .object(let top) = value, case .object(let object)? = top["numbers"] else {
            throw RecordError("expected {\"numbers\": {\"<number>\": \"<id>\", ...}}")
        }
        var result: [Int: String] = [:]
        for (text, id) in object {
            guard let n = parse(text) else { throw RecordError("\"\(text)\" is not an item number") }
            guard let key = id.stringValue else { throw RecordError("the id of number \(text) is not a string") }
            result[n] = key
        }
        return result
    }

    static func parseNext(_ value: JSONValue) throws(RecordError) -> Int {
        guard case .object(let top) = value, let next = top["next"]?.intValue, next >= 1 else {
            throw RecordError("expected {\"next\": <number from 1>}")
        }
        return next
    }
}

extension Store {
    /// The key of the item given `number` in `table` (retired numbers too), or nil: one file read.
    public func itemKey(number: Int, table: String) throws(StoreError) -> String? {
        try decode(ItemNumbers.file(layout, table, number: number), ItemNumbers.parseNumbers)?[number]
    }

    /// Every number of a table, by key (the newest when an id came back): for `list`, which
    /// shows them all. Reads the numbers files (1 per 256 items), not the items.
    public func itemNumbers(table: String) throws(StoreError) -> [String: Int] {
        var result: [String: Int] = [:]
        let dir = ItemNumbers.folder(layout, table)
        for name in try list(dir) where name != "next" {
            guard let numbers = try decode(dir + "/" + name, ItemNumbers.parseNumbers) else { continue }
            for (n, key) in numbers where n > (result[key] ?? 0) { result[key] = n }
        }
        return result
    }

    /// The number of one item (nil: none yet), from the index of ids while it vouches for the
    /// folders (`IDIndex`), else from every numbers file, one at a time (a dictionary of every
    /// number held 170 MB at a million: `show` before any index, issue 21).
    public func itemNumber(table: String, id: String) -> Int? {
        let key = ItemID.key(id)
        if let indexed = IDIndex.neighbours(of: key, table: table, in: self) { return indexed.found?.number }
        let dir = ItemNumbers.folder(layout, table)
        var found: Int?
        do throws(StoreError) {
            for name in try list(dir) where name != "next" {
                guard let numbers = try decode(dir + "/" + name, ItemNumbers.parseNumbers) else { continue }
                for (n, k) in numbers where k == key && n > (found ?? 0) { found = n }
            }
        } catch { return nil }
        return found
    }

    /// The next number of a table, nil when it has never been numbered.
    func nextItemNumber(table: String) throws(StoreError) -> Int? {
        try decode(ItemNumbers.nextFile(layout, table), ItemNumbers.parseNext)
    }
}

extension ItemNumbers {
    /// Gives numbers to the items a commit creates, staging the numbers files in it. Returns the
    /// numbers given, by table and key, and the tables numbered for the first time (all their
    /// items at once: the index of ids is rebuilt for those).
    static func stage(into tx: inout StoreTransaction, _ store: Store, _ changes: ItemFileChanges)
        throws(StoreError) -> (given: [String: [String: Int]], firstNumbered: Set<String>) {
        var given: [String: [String: Int]] = [:]
        var firstNumbered: Set<String> = []
        for table in changes.touched.sorted() {
            let added = (changes.added[table] ?? []).sorted(by: IDIndex.precedes)
            var next: Int
            var fresh = added
            if let stored = try store.nextItemNumber(table: table) {
                next = stored
            } else {
                // Never numbered: the items already here first, in id order, then the new ones.
                let gone = Set(changes.removed[table] ?? [])
                let existing = try store.itemKeysOnDisk(table: table).filter { !gone.contains($0) }.sorted(by: IDIndex.precedes)
                if fresh.isEmpty && existing.isEmpty { continue }
                fresh = existing + added
                next = 1
                firstNumbered.insert(table)
            }
            guard !fresh.isEmpty else { continue }
            var files: [String: [Int: String]] = [:]
            var numbers: [String: Int] = [:]
            for key in fresh {
                let path = file(store.layout, table, number: next)
                if files[path] == nil { files[path] = try store.decode(path, parseNumbers) ?? [:] }
                files[path]![next] = key
                numbers[key] = next
                next += 1
            }
            for (path, entries) in files { tx.put(path, numbersJSON(entries)) }
            tx.put(nextFile(store.layout, table), ["next": .number(Double(next))])
            given[table] = numbers
        }
        return (given, firstNumbered)
    }
}

/// What a commit does to the item files, by table: the keys of files it creates and removes,
/// and every table whose items folder it changes.
struct ItemFileChanges {
    var added: [String: [String]] = [:]
    var removed: [String: [String]] = [:]
    var touched: Set<String> = []

    /// Which staged item files exist is asked once per table folder (`FileSystem.existing`), and
    /// paths are read as UTF-8 bytes: a push batch stages hundreds of item files.
    static func of(_ tx: StoreTransaction, _ store: Store) throws(StoreError) -> ItemFileChanges {
        var changes = ItemFileChanges()
        var staged: [String: [(name: String, content: JSONValue?)]] = [:]
        for (path, content) in tx.staged {
            if let file = itemFile(path) { staged[file.table, default: []].append((file.name, content)) }
        }
        for (table, files) in staged {
            changes.touched.insert(table)
            let dir = store.layout.itemsDirectory(table)
            let existing = store.fs.existing(in: store.layout.absolute(dir), names: files.map(\.name))
            for ((name, content), exists) in zip(files, existing) {
                if let content, !exists, let id = content.objectValue?["id"]?.stringValue {
                    changes.added[table, default: []].append(ItemID.key(id))
                } else if content == nil, exists {
                    if let key = IDEncoding.decode(String(decoding: name.utf8.dropLast(5), as: UTF8.self)) {
                        changes.removed[table, default: []].append(key)
                    } else if let file = try store.decodeItemFile(dir + "/" + name) {
                        changes.removed[table, default: []].append(ItemID.key(file.item.id))
                    }
                }
            }
        }
        return changes
    }

    /// `tables/<table>/items/<name>.json` as its table and file name, else nil.
    static func itemFile(_ path: String) -> (table: String, name: String)? {
        var path = path  // withUTF8 is mutating; a native string is not copied
        return path.withUTF8 { b -> (table: String, name: String)? in
            let prefix = StoreLayout.tablesDirectory.utf8.count + 1
            guard b.count > prefix, b.starts(with: StoreLayout.tablesDirectory.utf8), b[prefix - 1] == UInt8(ascii: "/") else { return nil }
            var first = -1, second = -1
            for i in prefix..<b.count where b[i] == UInt8(ascii: "/") {
                if first < 0 { first = i } else if second < 0 { second = i } else { return nil }
            }
            guard second > 0, b[(first + 1)..<second].elementsEqual("items".utf8),
                  b[(second + 1)...].reversed().starts(with: "nosj.".utf8) else { return nil }
            return (String(decoding: b[prefix..<first], as: UTF8.self), String(decoding: b[(second + 1)...], as: UTF8.self))
        }
    }
}

extension Store {
    /// The keys of a table's item files, from a listing (hashed names open their file).
    func itemKeysOnDisk(table: String) throws(StoreError) -> [String] {
        var keys: [String] = []
        try forEachItemKeyOnDisk(table: table) { keys.append($0) }
        return keys
    }

    /// Each key of a table's item files as the folder is read, without holding them (a million
    /// items cost no memory here). Hashed names (`IDEncoding`) open their file after the walk.
    func forEachItemKeyOnDisk(table: String, _ body: (String) throws(StoreError) -> Void) throws(StoreError) {
        let dir = layout.itemsDirectory(table)
        var hashed: [String] = []
        try scanItemFileNames(table: table) { name throws(StoreError) in
            if let key = IDEncoding.decode(String(name.dropLast(5))) { try body(key) } else { hashed.append(name) }
            return true
        }
        for name in hashed { if let file = try decodeItemFile(dir + "/" + name) { try body(ItemID.key(file.item.id)) } }
    }
}
