#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// Item files seen with no hand edit, by stat stamp, so `status` and `diff` read only the item
/// files that changed since (git's index does this for `git status`, for the same reason: a scan
/// that reads every file grows with the store, not with the change).
///
/// 16 bytes a file: a digest of its path and one of its stamp (inode, size, mtime, ctime), each
/// 8 bytes little-endian, sorted, in pages of `Store.stampPageEntries` (65,536 entries, 1 MB)
/// under `.todo/cache/item-stamp-pages/<token>.<k>`. `.todo/cache/item-stamps` names them: a
/// first line `todo item stamps 3`, then `<token> <pages> <entries>`; renaming it in is the
/// cache's commit point, and the pages of other tokens are removed after it. A scan walks the
/// item files in the same order (`ItemStampScan`) and meets the entries a page at a time, so
/// memory holds two pages whatever the table (form 2, one file read and rebuilt whole, held
/// 16 MB a million items; it is no cache to this form, and rebuilt at the next scan).
///
/// A path digest shared by two files only makes one of them read again: the stamp digest must
/// match too, and a stamp holds the inode. It is derived data: deleting it costs one slow scan,
/// a damaged or missing page ends the cache there (its files are read again), and the folder's
/// own `.gitignore` keeps it out of commits (inode numbers mean nothing on another machine).
///
/// Why a stamp can be trusted: an entry says "the file with this stamp had no hand edit", and any
/// later write moves mtime and ctime. Except within one clock tick: file times are coarse, so a
/// file written in the same tick as the cache may have changed after it was stamped and still
/// show the same stamp. Such files (times not older than the start of the scan) are left out,
/// and read again next time: git's "racily clean" rule.
enum ItemStampCache {
    static let header = Array("todo item stamps 3\n".utf8)
    static let pagesDirectory = "cache/item-stamp-pages"

    struct Entry: Equatable, Comparable {
        var path: UInt64
        var stamp: UInt64
        static func < (a: Entry, b: Entry) -> Bool { (a.path, a.stamp) < (b.path, b.stamp) }

        init(path: UInt64, stamp: UInt64) {
            self.path = path
            self.stamp = stamp
        }

        init(_ path: String, _ stamp: FileStamp) {
            self.init(path: ItemStampCache.digest(path), stamp: ItemStampCache.digest(stamp))
        }
    }

    /// Which pages hold the entries, in order.
    struct Index: Equatable {
        var token: String
        var pages: Int
        var entries: Int
    }

    static func loadIndex(_ store: Store) -> Index? {
        guard let bytes = (try? store.fs.readFile(store.layout.absolute(StoreLayout.itemStampsFile))) ?? nil else { return nil }
        return parseIndex(bytes)
    }

    /// Nil unless the header is right and the line after it is whole: anything else is no cache.
    static func parseIndex(_ bytes: [UInt8]) -> Index? {
        guard bytes.count > header.count, bytes.starts(with: header), bytes.last == UInt8(ascii: "\n") else { return nil }
        let fields = bytes[header.count..<(bytes.count - 1)].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count == 3, !fields[0].isEmpty, fields[0].allSatisfy({ isTokenByte($0) }),
              let pages = Int(String(decoding: fields[1], as: UTF8.self)), pages >= 0,
              let entries = Int(String(decoding: fields[2], as: UTF8.self)), entries >= 0 else { return nil }
        return Index(token: String(decoding: fields[0], as: UTF8.self), pages: pages, entries: entries)
    }

    static func encodeIndex(_ index: Index) -> [UInt8] {
        header + Array("\(index.token) \(index.pages) \(index.entries)\n".utf8)
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || b == UInt8(ascii: "-")
    }

    static func page(_ token: String, _ k: Int) -> String { pagesDirectory + "/\(token).\(k)" }

    /// Nil unless it is whole entries.
    static func parsePage(_ bytes: [UInt8]) -> [Entry]? {
        guard bytes.count % 16 == 0 else { return nil }
        return stride(from: 0, to: bytes.count, by: 16).map { Entry(path: word(bytes, $0), stamp: word(bytes, $0 + 8)) }
    }

    static func encodePage(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 * entries.count)
        for e in entries {
            for v in [e.path, e.stamp] {
                for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
            }
        }
        return out
    }

    /// An entry as a sort key (big-endian), so that keys sort as entries do.
    static func key(_ e: Entry) -> [UInt8] {
        (0..<16).map { i in UInt8(truncatingIfNeeded: (i < 8 ? e.path : e.stamp) >> UInt64(56 - 8 * (i % 8))) }
    }

    static func entry(key: [UInt8]) -> Entry {
        var path: UInt64 = 0, stamp: UInt64 = 0
        for i in 0..<8 {
            path = path << 8 | UInt64(key[i])
            stamp = stamp << 8 | UInt64(key[8 + i])
        }
        return Entry(path: path, stamp: stamp)
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

    /// The start of a scan that records: the next index's temp file, whose mtime is the file
    /// system's time before any file was stamped (a file whose times are not older may have
    /// changed within the tick after it was stamped: racily clean, not recorded). Nil when the
    /// temp file could not be made: a store that cannot be written (read-only media, a reader's
    /// view of a commit) simply keeps reading every file. The temp name carries the pid because
    /// readers write the cache without the store lock.
    struct Start {
        let temp: String
        let moment: Int64
        var token: String { "\(getpid())-\(moment)" }

        init?(_ store: Store) {
            let path = store.layout.absolute(StoreLayout.itemStampsFile)
            temp = path.parentPath.appendingPath(".\(path.lastPathComponent).\(getpid()).tmp")
            do {
                try CacheFolder.prepare(store)
                try store.fs.createDirectory(store.layout.absolute(ItemStampCache.pagesDirectory))
                try store.fs.writeFile(temp, [], sync: false)
            } catch { return nil }
            guard let moment = store.fs.stamp(temp)?.modified, moment >= 0 else {
                try? store.fs.removeFile(temp)
                return nil
            }
            self.moment = moment
        }

        func abandon(_ store: Store) { try? store.fs.removeFile(temp) }
    }
}
