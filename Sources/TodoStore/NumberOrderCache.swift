#if canImport(Glibc)
import Glibc
#endif
import TodoBasics

/// `NumberedIDs` kept between commands, so that `list` and `export` of a million items print
/// their first line at once instead of after a pass over the whole index of ids (issue 21).
///
/// `.todo/cache/numbered/<table>`: a first line `todo numbered ids 1`, then, each length or
/// number 8 bytes little-endian: the key's length and the key, the widest short id, the count
/// of numbers and one byte per number (`NumberedIDs.unique`), and a digest of all before it.
/// The key is what the figures were made from: the stat stamp of the index's `stamp` file
/// (every change to the index ends by rewriting or removing it, and a rewrite is a rename: new
/// inode, new ctime), the next item number, the shortest short id, and the ids without item files
/// (pending deletes, conflicts). A cache whose key is not today's is not read; a damaged one is
/// no cache. Derived data like the index: deleting it costs one pass.
enum NumberedIDsCache {
    static let header = Array("todo numbered ids 1\n".utf8)

    static func file(_ table: String) -> String { StoreLayout.cacheDirectory + "/numbered/" + table }

    static func key(stamp: FileStamp, next: Int, minimum: Int, extra: [[UInt8]]) -> [UInt8] {
        var key = Array("index \(stamp.inode) \(stamp.size) \(stamp.modified) \(stamp.changed)\nnext \(next)\nminimum \(minimum)\n".utf8)
        for id in extra { key += id + [10] }
        return key
    }

    /// The figures saved under `key`, or nil.
    static func load(_ store: Store, _ table: String, key: [UInt8], count: Int) -> NumberedIDs? {
        guard let b = (try? store.fs.readFile(store.layout.absolute(file(table)))) ?? nil,
              b.count == header.count + 8 + key.count + 16 + count + 8, b[0..<header.count].elementsEqual(header) else { return nil }
        var at = header.count
        guard word(b, at) == UInt64(key.count), b[(at + 8)..<(at + 8 + key.count)].elementsEqual(key) else { return nil }
        at += 8 + key.count
        let widest = Int(truncatingIfNeeded: word(b, at))
        guard word(b, at + 8) == UInt64(count), word(b, b.count - 8) == digest(b[..<(b.count - 8)]) else { return nil }
        at += 16
        return NumberedIDs(unique: Array(b[at..<(at + count)]), widestShortID: widest)
    }

    /// Best effort, as the item stamps cache (`ItemStampCache.Writer.commit`): readers write it without
    /// the store lock, so the temp name carries the pid; a store that cannot be written makes
    /// the pass again next time.
    static func save(_ store: Store, _ table: String, key: [UInt8], _ numbered: NumberedIDs) {
        let path = store.layout.absolute(file(table))
        let temp = path.parentPath.appendingPath(".\(path.lastPathComponent).\(getpid()).tmp")
        var b = header
        b.reserveCapacity(header.count + key.count + numbered.unique.count + 32)
        append(UInt64(key.count), to: &b)
        b += key
        append(UInt64(numbered.widestShortID), to: &b)
        append(UInt64(numbered.unique.count), to: &b)
        b += numbered.unique
        append(digest(b[...]), to: &b)
        do {
            try CacheFolder.prepare(store)
            try store.fs.createDirectory(path.parentPath)
            try store.fs.writeFile(temp, b, sync: true)
            try store.fs.rename(temp, to: path)
        } catch {
            try? store.fs.removeFile(temp)
        }
    }

    private static func append(_ v: UInt64, to b: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { b.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    private static func word(_ b: [UInt8], _ at: Int) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(b[at + k]) << UInt64(8 * k) }
        return v
    }

    /// FNV-1a: a torn or damaged file is no cache.
    private static func digest(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return h
    }
}
