#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// Item files seen with no hand edit, by stat stamp, so `status` and `diff` read only the item
/// files that changed since (git's index does this for `git status`, for the same reason: a scan
/// that reads every file grows with the store, not with the change).
///
/// `.todo/cache/item-stamps`, a line per file: `<path> <inode> <size> <mtime ns> <ctime ns>`
/// under a first line `todo item stamps 1`. It is derived data: deleting it costs one slow scan,
/// a damaged one is ignored, and the folder's own `.gitignore` keeps it out of commits (inode
/// numbers mean nothing on another machine).
///
/// Why a stamp can be trusted: an entry says "the file with this stamp had no hand edit", and any
/// later write moves mtime and ctime. Except within one clock tick: file times are coarse, so a
/// file written in the same tick as the cache may have changed after it was stamped and still
/// show the same stamp. Such entries (times not older than the cache file) are not trusted on
/// load, and the file is read again: git's "racily clean" rule.
struct ItemStampCache: Equatable {
    static let header = "todo item stamps 1"
    /// Relative path (`tables/<table>/items/<enc>.json`) -> stamp.
    var entries: [String: FileStamp] = [:]

    static func load(_ store: Store) -> ItemStampCache {
        let path = store.layout.absolute(StoreLayout.itemStampsFile)
        guard let own = store.fs.stamp(path), let bytes = (try? store.fs.readFile(path)) ?? nil,
              let parsed = parse(bytes) else { return ItemStampCache() }
        return ItemStampCache(entries: parsed.filter { $0.value.latest < own.modified })
    }

    /// Nil unless every line is well formed: a damaged cache is no cache. On bytes: 10,000 lines
    /// are read by every `status`.
    static func parse(_ bytes: [UInt8]) -> [String: FileStamp]? {
        bytes.withUnsafeBufferPointer { b -> [String: FileStamp]? in
            let head = Array(header.utf8) + [UInt8(ascii: "\n")]
            guard b.count >= head.count, b.last == UInt8(ascii: "\n"), Array(b[0..<head.count]) == head else { return nil }
            var entries: [String: FileStamp] = [:]
            entries.reserveCapacity(b.count / 64)
            var i = head.count
            func field(_ end: UInt8) -> Int? {
                let start = i
                while i < b.count, b[i] != end, b[i] != UInt8(ascii: " "), b[i] != UInt8(ascii: "\n") { i += 1 }
                guard i < b.count, b[i] == end, i > start else { return nil }
                defer { i += 1 }
                return start
            }
            func number(_ end: UInt8) -> UInt64? {
                var n: UInt64 = 0
                var digits = 0
                while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") {
                    let (times10, o1) = n.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(UInt64(b[i] - UInt8(ascii: "0")))
                    guard !o1, !o2 else { return nil }
                    n = sum
                    i += 1
                    digits += 1
                }
                guard digits > 0, i < b.count, b[i] == end else { return nil }
                i += 1
                return n
            }
            func signed(_ end: UInt8) -> Int64? { number(end).flatMap { Int64(exactly: $0) } }
            while i < b.count {
                guard let start = field(UInt8(ascii: " ")) else { return nil }
                let path = String(decoding: UnsafeBufferPointer(rebasing: b[start..<(i - 1)]), as: UTF8.self)
                guard let inode = number(UInt8(ascii: " ")), let size = signed(UInt8(ascii: " ")),
                      let modified = signed(UInt8(ascii: " ")), let changed = signed(UInt8(ascii: "\n"))
                else { return nil }
                entries[path] = FileStamp(inode: inode, size: size, modified: modified, changed: changed)
            }
            return entries
        }
    }

    func encoded() -> [UInt8] {
        var text = Self.header + "\n"
        for (path, s) in entries.sorted(by: { $0.key < $1.key }) {
            text += "\(path) \(s.inode) \(s.size) \(s.modified) \(s.changed)\n"
        }
        return Array(text.utf8)
    }

    /// Best effort: a store that cannot be written (read-only media, a reader's view of a commit)
    /// simply keeps reading every file. The temp name carries the pid because readers write this
    /// without the store lock; the rename is not made durable (a lost one leaves an older cache,
    /// whose entries are still true).
    func save(_ store: Store) {
        let fs = store.fs
        let path = store.layout.absolute(StoreLayout.itemStampsFile)
        let dir = path.parentPath
        let temp = dir.appendingPath(".\(path.lastPathComponent).\(getpid()).tmp")
        do {
            try CacheFolder.prepare(store)
            try fs.writeFile(temp, encoded(), sync: true)
            try fs.rename(temp, to: path)
        } catch {
            try? fs.removeFile(temp)
        }
    }
}
