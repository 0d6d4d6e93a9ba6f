/// A parsed `$select` (protocol §8.10): `*`, or a comma list of names with optional spaces.
public enum SelectList: Equatable, Sendable {
    /// `*`: every member.
    case all
    /// Exactly these members, in the order first named, without repeats.
    case members([ODataMember])

    /// Parses a `$select` value. Names are identifiers (`[A-Za-z_][A-Za-z0-9_]*`); system names
    /// match in either spelling and any case (§4.1); other names are user columns, case-sensitive.
    public static func parse(_ text: String) throws(ODataQueryError) -> SelectList {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func skipSpaces() {
            while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        }
        func fail(_ reason: String) -> ODataQueryError {
            ODataQueryError(option: "$select", position: index, reason: reason)
        }
        func found() -> String {
            index < scalars.count ? "'\(scalars[index])'" : "end of input"
        }

        skipSpaces()
        if index < scalars.count, scalars[index] == "*" {
            index += 1
            skipSpaces()
            guard index == scalars.count else { throw fail("unexpected \(found()) after '*'") }
            return .all
        }
        var members: [ODataMember] = []
        while true {
            skipSpaces()
            let start = index
            guard index < scalars.count, isNameStart(scalars[index]) else {
                throw fail(start == 0 && index == scalars.count ? "the list of names is empty" : "expected a name, found \(found())")
            }
            while index < scalars.count, isNamePart(scalars[index]) { index += 1 }
            var name = ""
            name.unicodeScalars.append(contentsOf: scalars[start..<index])
            let member = ODataMember(name: name)
            if !members.contains(member) { members.append(member) }
            skipSpaces()
            if index == scalars.count { return .members(members) }
            guard scalars[index] == "," else { throw fail("unexpected \(found()) after '\(name)'; expected ','") }
            index += 1
        }
    }

    /// The user columns named (§8.5); none for `*`.
    public var referencedColumns: Set<String> {
        guard case .members(let members) = self else { return [] }
        return Set(members.compactMap(\.columnName))
    }

    private static func isNameStart(_ s: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(s) || ("A"..."Z").contains(s) || s == "_"
    }

    private static func isNamePart(_ s: Unicode.Scalar) -> Bool {
        isNameStart(s) || ("0"..."9").contains(s)
    }
}
