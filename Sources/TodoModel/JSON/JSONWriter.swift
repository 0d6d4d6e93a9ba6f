/// The one JSON writer of the project.
///
/// Keys are sorted by their UTF-8 bytes and numbers follow protocol §4.7.3, so the same data always
/// gives the same bytes: rewriting an unchanged record is a no-op for `git diff`.
extension JSONValue {
    /// Pretty form for files: two-space indent, `"key": value`, final newline.
    public func canonicalBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONWriter.write(self, into: &out, indent: 0, pretty: true)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// The pretty form nested `level` deep (no final newline): an element of a pretty array
    /// written one element at a time (`list --json` of a million items).
    public func canonicalBytes(nestedAt level: Int) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out, indent: level, pretty: true)
        return out
    }

    /// Compact form for wire bodies and one-line output.
    public func compactBytes() -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out, indent: 0, pretty: false)
        return out
    }

    public var compactText: String { String(decoding: compactBytes(), as: UTF8.self) }
    public var canonicalText: String { String(decoding: canonicalBytes(), as: UTF8.self) }
}

enum JSONWriter {
    static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int, pretty: Bool) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let d): out.append(contentsOf: formatNumber(d).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            if elements.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent + 1, pretty)
                write(element, into: &out, indent: indent + 1, pretty: pretty)
            }
            newline(&out, indent, pretty)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            // Sorting the members, not the keys, saves looking each key up again.
            let sorted = members.sorted { utf8Precedes($0.key, $1.key) }
            for (i, member) in sorted.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent + 1, pretty)
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                write(member.value, into: &out, indent: indent + 1, pretty: pretty)
            }
            newline(&out, indent, pretty)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int, _ pretty: Bool) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    /// `a.utf8.lexicographicallyPrecedes(b.utf8)`, on contiguous bytes rather than through the
    /// `UTF8View`'s indices, which cost a few times more.
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in x.lexicographicallyPrecedes(y) }
        }
        return (fast ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)  // nil: a string without contiguous UTF-8
    }

    /// Integral values within ±2^53 print without a fraction; others use the shortest text that
    /// reads back to the same double (Swift's `description` is shortest-round-trip).
    static func formatNumber(_ d: Double) -> String {
        if d.rounded() == d, abs(d) <= 9_007_199_254_740_992 {
            return String(Int64(d))
        }
        return d.description
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        // On the contiguous bytes: a scan of the `UTF8View` costs several times more.
        if s.utf8.withContiguousStorageIfAvailable({ writeString($0, into: &out) }) == nil {
            Array(s.utf8).withUnsafeBufferPointer { writeString($0, into: &out) }
        }
    }

    private static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Fast path: most strings need no escaping and are copied in one go.
        if !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                let hex = Array("0123456789abcdef".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Appending JSON text piece by piece, for writers that stream many records (the server's pages)
/// without building a `JSONValue` per record. Same formatting rules as `compactBytes()`.
public enum JSONText {
    public static func appendString(_ s: String, to out: inout [UInt8]) { JSONWriter.writeString(s, into: &out) }
    public static func appendValue(_ v: JSONValue, to out: inout [UInt8]) { JSONWriter.write(v, into: &out, indent: 0, pretty: false) }
}
