#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// Item files seen with no hand edit, by stat stamp, so `status` and `diff` read only the item
/// files that changed since (git's index does this for `git status`, for the same reason: a scan
/// that reads every file grows with the store, not with the change).
///
/// `.todo/cache/item-stamps`: a first line `todo item stamps 2`, then 16 bytes a file: a digest
/// of its path and one of its stamp (inode, size, mtime, ctime), each 8 bytes little-endian,
/// sorted. A million items cost 16 MB, on disk and in memory, where paths and stamps as text in a
/// table cost 150 MB. A path digest shared by two files only makes one of them read again: the
/// stamp digest must match too, and a stamp holds the inode. It is derived data: deleting it
/// costs one slow scan, a damaged one is ignored, and the folder's own `.gitignore` keeps it out
/// of commits (inode numbers mean nothing on another machine).
///
/// Why a stamp can be trusted: an entry says "the file with this stamp had no hand edit", and any
/// later write moves mtime and ctime. Except within one clock tick: file times are coarse, so a
/// file written in the same tick as the cache may have changed after it was stamped and still
/// show the same stamp. Such files (times not older than the start of the scan) are left out,
/// and read again next time: git's "racily clean" rule.
struct ItemStampCache: Equatable {
    static let header = Array("todo item stamps 2\n".utf8)

    /// Path digest and stamp digest of each clean file, sorted.
    private(set) var entries: [Entry] = []

    struct Entry: Equatable, Comparable {
        var path: UInt64
        var stamp: UInt64
        static func < (a: Entry, b: Entry) -> Bool { (a.path, a.stamp) < (b.path, b.stamp) }
    }

    var count: Int { entries.count }

    static func load(_ store: Store) -> ItemStampCache {
        let path = store.layout.absolute(StoreLayout.itemStampsFile)
        guard let bytes = (try? store.fs.readFile(path)) ?? nil, let parsed = parse(bytes) else { return ItemStampCache() }
        return parsed
    }

    /// Nil unless the header is right, the rest is whole entries, and they are sorted: a damaged
    /// cache is no cache.
    static func parse(_ bytes: [UInt8]) -> ItemStampCache? {
        guard bytes.count >= header.count, Array(bytes[0..<header.count]) == header,
              (bytes.count - header.count) % 16 == 0 else { return nil }
        var cache = ItemStampCache()
        cache.entries.reserveCapacity((bytes.count - header.count) / 16)
        var i = header.count
        while i < bytes.count {
            let entry = Entry(path: word(bytes, i), stamp: word(bytes, i + 8))
            if let last = cache.entries.last, entry < last { return nil }
            cache.entries.append(entry)
            i += 16
        }
        return cache
    }

    /// Whether the file at `path` (relative to `.todo`) was clean with this very stamp.
    func isClean(_ path: String, _ stamp: FileStamp) -> Bool {
        let wanted = Entry(path: Self.digest(path), stamp: Self.digest(stamp))
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid] < wanted { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries[low] == wanted
    }

    /// These entries and `other`'s, sorted, each once.
    mutating func merge(_ other: [Entry]) {
        entries += other
        entries.sort()
        var kept = 0
        for i in entries.indices where kept == 0 || entries[kept - 1] != entries[i] {
            entries[kept] = entries[i]
            kept += 1
        }
        entries.removeLast(entries.count - kept)
    }

    func encoded() -> [UInt8] {
        var out = Self.header
        out.reserveCapacity(out.count + 16 * entries.count)
        for e in entries {
            for v in [e.path, e.stamp] {
                for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
            }
        }
        return out
    }

    /// FNV-1a over the path's bytes, then mixed: stable across runs (Swift's `Hasher` is not).
    static func digest(_ path: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return mix(h)
    }

    static func digest(_ s: FileStamp) -> UInt64 {
        mix(s.inode ^ mix(UInt64(bitPattern: s.size) ^ mix(UInt64(bitPattern: s.modified) ^ mix(UInt64(bitPattern: s.changed)))))
    }

    /// splitmix64's finaliser: every input bit moves every output bit.
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    private static func word(_ b: [UInt8], _ at: Int) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(b[at + k]) << UInt64(8 * k) }
        return v
    }

    /// The files a scan found clean. Begun by creating the next cache's temp file, whose mtime
    /// is the file system's time before any file was stamped: a file whose times are not older
    /// may have changed within the tick after it was stamped (racily clean), and is left out.
    struct Scan {
        let temp: String
        /// Nil when the temp file could not be made: nothing is recorded or saved.
        let moment: Int64?
        var entries: [Entry] = []

        mutating func add(_ path: String, _ stamp: FileStamp) {
            guard let moment, stamp.latest < moment else { return }
            entries.append(Entry(path: ItemStampCache.digest(path), stamp: ItemStampCache.digest(stamp)))
        }

        var count: Int { entries.count }
    }

    static func beginScan(_ store: Store) -> Scan {
        let path = store.layout.absolute(StoreLayout.itemStampsFile)
        let temp = path.parentPath.appendingPath(".\(path.lastPathComponent).\(getpid()).tmp")
        do {
            try CacheFolder.prepare(store)
            try store.fs.writeFile(temp, [], sync: false)
            return Scan(temp: temp, moment: store.fs.stamp(temp)?.modified)
        } catch {
            return Scan(temp: temp, moment: nil)
        }
    }

    /// Best effort: a store that cannot be written (read-only media, a reader's view of a commit)
    /// simply keeps reading every file. The temp name carries the pid because readers write this
    /// without the store lock; the rename is not made durable (a lost one leaves an older cache,
    /// whose entries are still true). `keeping`: entries of the old cache the scan did not cover
    /// (other tables); nil when the cache needs no rewrite.
    static func finish(_ store: Store, _ scan: Scan, keeping old: [Entry]?) {
        let fs = store.fs
        guard scan.moment != nil, let old else { try? fs.removeFile(scan.temp); return }
        var cache = ItemStampCache()
        cache.entries = scan.entries
        cache.merge(old)
        do {
            try fs.writeFile(scan.temp, cache.encoded(), sync: true)
            try fs.rename(scan.temp, to: store.layout.absolute(StoreLayout.itemStampsFile))
        } catch {
            try? fs.removeFile(scan.temp)
        }
    }
}
