/// A name in `$filter`, `$orderby` or `$select`: the identity, another system property, or a
/// user column.
///
/// Why the split is made at parse time: system names match in any case and either spelling, user
/// columns match exactly (§4.1, §8.5), and the server must know which user columns a query names
/// so it can answer `[]` for a column the table does not have.
public enum ODataMember: Hashable, Sendable {
    /// `id`, in any letter case.
    case id
    /// `createdAt`/`__createdAt` and the others, in any letter case.
    case system(SystemProperty)
    /// A user column, case-sensitive, as written in the query.
    case column(String)

    /// Classifies a name from a query. `__id` is not a spelling of `id`: it is a column name.
    public init(name: String) {
        if Self.asciiCaseInsensitiveEquals(name.utf8[...], "id".utf8) {
            self = .id
            return
        }
        var bare = name.utf8[...]
        if bare.starts(with: "__".utf8) { bare = bare.dropFirst(2) }
        for property in SystemProperty.allCases where Self.asciiCaseInsensitiveEquals(bare, property.rawValue.utf8) {
            self = .system(property)
            return
        }
        self = .column(name)
    }

    /// The user column name, or nil for a system property.
    public var columnName: String? {
        if case .column(let name) = self { return name }
        return nil
    }

    /// The name as printed in a filter: G2 spelling for system properties.
    public var name: String {
        switch self {
        case .id: return "id"
        case .system(let property): return property.rawValue
        case .column(let name): return name
        }
    }

    private static func asciiCaseInsensitiveEquals(_ a: Substring.UTF8View, _ b: String.UTF8View) -> Bool {
        a.elementsEqual(b) { asciiLower($0) == asciiLower($1) }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}
