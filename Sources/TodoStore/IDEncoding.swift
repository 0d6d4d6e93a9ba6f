import TodoBasics
import TodoModel

/// File names for ids (sync.md §2): safe, case-insensitive, reversible when short.
///
/// 1. Lower-case the id (the protocol's comparison form), so ids differing only in case share a file.
/// 2. Percent-encode every UTF-8 byte outside `[a-z0-9_-]` as `%XX`, so a name never holds `/`,
///    `.` or NUL and can never leave its folder.
/// 3. Past `maximumLength`, or when empty, keep a prefix and append `~` and a SHA-256 digest. `~` is
///    never produced by step 2, so hashed names cannot collide with plain ones.
/// The file itself keeps the id's spelling; readers check it.
public enum IDEncoding {
    /// Leaves room for the sequence, kind and a 128-character table name within NAME_MAX (255).
    public static let maximumLength = 90
    static let digestLength = 32

    public static func fileName(for id: String) -> String {
        let key = ItemID.key(id)
        let encoded = percentEncode(key)
        if !encoded.isEmpty && encoded.utf8.count <= maximumLength { return encoded }
        let digest = String(SHA256.hexDigest(Array(key.utf8)).prefix(digestLength))
        var prefix = Substring(encoded.prefix(maximumLength - digestLength - 1))
        // Never cut a %XX escape in half: it keeps names readable.
        if let percent = prefix.suffix(2).firstIndex(of: "%") { prefix = prefix[..<percent] }
        return prefix + "~" + digest
    }

    /// The lower-case id a name stands for, or nil for hashed names (read the file for those).
    public static func decode(_ name: String) -> String? {
        guard !name.contains("~") else { return nil }
        var bytes: [UInt8] = []
        var iterator = Array(name.utf8).makeIterator()
        while let b = iterator.next() {
            if b == UInt8(ascii: "%") {
                guard let h = iterator.next(), let l = iterator.next(), let hi = hexValue(h), let lo = hexValue(l)
                else { return nil }
                bytes.append(hi << 4 | lo)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The encoded form of a prefix, for matching file names without reading them.
    public static func prefixPattern(_ prefix: String) -> String { percentEncode(ItemID.key(prefix)) }

    public static func isHashed(_ name: String) -> Bool { name.contains("~") }

    static func percentEncode(_ key: String) -> String {
        // Most keys (uuids, names typed by people) need no escape: then the name is the key.
        // (Checked in the contiguous bytes: through `utf8`'s indices it cost ~1,000 instructions
        // a uuid, and a push names each op's item and op files several times.)
        var text = key  // withUTF8 is mutating; a native string is not copied
        if text.withUTF8({ $0.allSatisfy(isPlain) }) { return key }
        let hex = hexDigits
        var out: [UInt8] = []
        out.reserveCapacity(key.utf8.count)
        for b in key.utf8 {
            if isPlain(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// A byte a name keeps as it is: a-z, 0-9, `_`, `-`.
    private static func isPlain(_ b: UInt8) -> Bool {
        (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 95 || b == 45
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: return b - 48
        case 65...70: return b - 55
        default: return nil
        }
    }
}
