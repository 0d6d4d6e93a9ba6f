/// User field names (sync.md §10.3.2): `[A-Za-z_][A-Za-z0-9_]*`, at most 128 characters, and none
/// of the reserved system names in any of their spellings.
public enum FieldName {
    public static let maximumLength = 128

    /// Why a name cannot be a user field, or nil when it can.
    public static func problem(_ name: String) -> String? {
        guard isIdentifier(name, maximumLength: maximumLength) else {
            return "\"\(name)\" is not a valid field name; use letters, digits and '_', starting with a letter or '_' (at most 128)"
        }
        switch reserved(name) {
        case .systemPrefix: return "\"\(name)\" is reserved: names starting with '__' are system properties"
        case .msPrefix: return "\"\(name)\" is reserved: names starting with 'ms_' are system properties"
        case .systemProperty: return "\"\(name)\" is reserved: it is a system property"
        case .id: return "\"\(name)\" is reserved: the identity is 'id' and cannot be set as a field"
        case nil: return nil
        }
    }

    private enum Reserved { case systemPrefix, msPrefix, systemProperty, id }

    /// Which reserved shape an identifier has, ignoring ASCII case. On bytes, with no lower-cased
    /// copy: this runs for every field of every record read (~750 instructions a name by
    /// `lowercased()` and a switch on strings). An identifier is ASCII, so ASCII case is all.
    private static func reserved(_ identifier: String) -> Reserved? {
        var name = identifier  // withUTF8 is mutating; a native string is not copied
        return name.withUTF8 { b -> Reserved? in
            func lower(_ i: Int) -> UInt8 { b[i] >= 65 && b[i] <= 90 ? b[i] | 0x20 : b[i] }
            func spells(_ word: StaticString) -> Bool {
                guard b.count == word.utf8CodeUnitCount else { return false }
                for i in 0..<b.count where lower(i) != word.utf8Start[i] { return false }
                return true
            }
            if b.count >= 2, b[0] == UInt8(ascii: "_"), b[1] == UInt8(ascii: "_") { return .systemPrefix }
            if b.count >= 3, lower(0) == UInt8(ascii: "m"), lower(1) == UInt8(ascii: "s"), b[2] == UInt8(ascii: "_") { return .msPrefix }
            if spells("createdat") || spells("updatedat") || spells("version") || spells("deleted") { return .systemProperty }
            if spells("id") { return .id }
            return nil
        }
    }

    /// `[A-Za-z_][A-Za-z0-9_]*` of 1 to `maximumLength` bytes: the shape of field and table names
    /// on both sides of the protocol (§3.1.2, §4.7.1).
    public static func isIdentifier(_ name: String, maximumLength: Int = 128) -> Bool {
        var name = name  // withUTF8 is mutating; a native string is not copied
        return name.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
            for (i, b) in bytes.enumerated() {
                let letter = (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95
                let digit = b >= 48 && b <= 57
                if !(letter || (i > 0 && digit)) { return false }
            }
            return true
        }
    }
}

/// Table names (protocol §3.1.2): 1 to 128 characters of `[A-Za-z_][A-Za-z0-9_]*`, matched ignoring case.
public enum TableName {
    public static let defaultTable = "todoitem"

    public static func problem(_ name: String) -> String? {
        FieldName.isIdentifier(name, maximumLength: 128)
            ? nil
            : "'\(name)' is not a valid table name; use 1 to 128 letters, digits and '_', starting with a letter or '_'"
    }

    public static func same(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }
}

/// Item ids (protocol §4.2): 1 to 255 UTF-16 code units; not whitespace only; no control
/// characters; none of `"` `+` `?` `\` `/` `` ` ``; not `.` or `..`.
public enum ItemID {
    public static func problem(_ id: String) -> String? {
        if isPlainASCII(id) { return nil }
        let units = id.utf16.count
        if units == 0 { return "an id cannot be empty" }
        if units > 255 { return "id is \(units) UTF-16 code units long; at most 255 are allowed" }
        if id == "." || id == ".." { return "'\(id)' cannot be an id" }
        if id.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) { return "an id cannot be whitespace only" }
        for scalar in id.unicodeScalars {
            let v = scalar.value
            if v <= 0x1F || (0x7F...0x9F).contains(v) {
                return "id contains the control character U+\(hex4(v)); ids cannot contain control characters"
            }
            if "\"+?\\/`".unicodeScalars.contains(scalar) {
                return "id contains '\(scalar)'; ids cannot contain \" + ? \\ / or `"
            }
        }
        return nil
    }

    /// The usual id (a uuid, a name typed by people) checked as bytes: printable ASCII, none of
    /// the refused characters, not `.` or `..`, at most 255 long, not spaces only. False sends
    /// it through the full check, which says what is wrong (a push checks every answer's id).
    private static func isPlainASCII(_ id: String) -> Bool {
        var id = id  // withUTF8 is mutating; a native string is not copied
        return id.withUTF8 { b in
            guard !b.isEmpty, b.count <= 255, !(b.count <= 2 && b.allSatisfy { $0 == UInt8(ascii: ".") }) else { return false }
            var spacesOnly = true
            for c in b {
                guard c >= 0x20, c < 0x7F else { return false }
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "`"): return false
                case 0x20: break
                default: spacesOnly = false
                }
            }
            return !spacesOnly
        }
    }

    /// The form under which the protocol compares ids: the Unicode default lower-case mapping.
    /// An id already in that form (ASCII with no capital: every uuid todo makes) is its own key,
    /// with no copy: a push takes the key of each op's id five times or more.
    public static func key(_ id: String) -> String { UTF8Text.lowercased(id) }

    /// Identical bytes first: the usual case (an operation's id and its item's) then needs no lower-cased copies.
    public static func same(_ a: String, _ b: String) -> Bool { sameBytes(a, b) || key(a) == key(b) }

    /// UTF-8 equality, no Unicode rules: a quick yes that implies `same`.
    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b  // withUTF8 is mutating; native strings are not copied
        return a.withUTF8 { x in b.withUTF8 { y in UTF8Text.equal(x, y) } }
    }

    private static func hex4(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
