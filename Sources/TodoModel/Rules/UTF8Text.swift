/// Two byte-level helpers shared by the client and the server, for text they handle per request
/// or per op (ids, table and field names, header fields): measured hot in pushes (session 35).
public enum UTF8Text {
    /// `s.lowercased()`, or `s` itself when it is ASCII without an upper-case letter (uuids as
    /// todo makes them, table names): the same bytes, with no new string. An insert lowercased
    /// its id several times on each side, about 500 instructions and an allocation each.
    public static func lowercased(_ s: String) -> String {
        var probe = s  // withUTF8 is mutating; a native string is not copied
        let unchanged = probe.withUTF8 { !hasUpperCaseOrNonASCII($0) }
        return unchanged ? s : s.lowercased()
    }

    /// Eight bytes at a time: a byte is non-ASCII when its top bit is set; an ASCII byte is in
    /// A-Z when adding 0x3F sets its top bit and adding 0x25 does not (no carry can cross bytes).
    static func hasUpperCaseOrNonASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= bytes.count {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if w & high != 0 { return true }
                if (w &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(w &+ 0x2525_2525_2525_2525) & high != 0 { return true }
                i += 8
            }
        }
        while i < bytes.count {
            let b = bytes[i]
            if b >= 0x80 || (b >= 0x41 && b <= 0x5A) { return true }
            i += 1
        }
        return false
    }

    /// Whether two buffers hold the same bytes, compared eight at a time (`elementsEqual` goes
    /// byte by byte, ~1,000 instructions a uuid).
    public static func equal(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        guard x.count == y.count else { return false }
        guard let p = x.baseAddress, let q = y.baseAddress else { return true }  // both empty
        let a = UnsafeRawPointer(p), b = UnsafeRawPointer(q)
        var i = 0
        while i + 8 <= x.count {
            if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < x.count {
            if p[i] != q[i] { return false }
            i += 1
        }
        return true
    }
}
