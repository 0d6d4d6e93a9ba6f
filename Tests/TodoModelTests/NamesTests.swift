import Testing
@testable import TodoModel

@Suite struct NamesTests {
    @Test(arguments: ["__v", "__version", "ms_v", "MS_x", "Ms_y", "version", "Version", "createdAt", "UPDATEDAT",
                      "deleted", "ID", "Id", "iD", "id", "1abc", "a-b", "", String(repeating: "a", count: 129), "a b", "é"])
    func reservedOrInvalidFieldNamesAreRefused(name: String) {
        #expect(FieldName.problem(name) != nil)
    }

    @Test(arguments: ["text", "complete", "priority", "_x", "a1", "versions", "ms", "m_s", String(repeating: "a", count: 128)])
    func userFieldNamesAreAccepted(name: String) {
        #expect(FieldName.problem(name) == nil)
    }

    @Test(arguments: ["a/b", "a?b", "a+b", "a\\b", "a\"b", "a`b", "a\u{01}b", "a\u{85}b", ".", "..", "   ", "",
                      String(repeating: "x", count: 256), "\u{0}"])
    func invalidIDsAreRefused(id: String) {
        #expect(ItemID.problem(id) != nil)
    }

    @Test(arguments: ["x", "D265929E-B17B-42D1-8FAB-D0ADF26486FA", String(repeating: "x", count: 255), "a.b", "Ünïcødé ✓", "..."])
    func validIDsAreAccepted(id: String) {
        #expect(ItemID.problem(id) == nil)
    }

    @Test func idsCompareIgnoringCase() {
        #expect(ItemID.same("AbC", "abc"))
        #expect(!ItemID.same("abc", "abd"))
    }

    /// An id already lower-case is its own key (no copy); any id's key is still its lower-case form.
    @Test(arguments: ["", "x", "abc-123_z", "D265929E-B17B-42D1-8FAB-D0ADF26486FA", "d265929e-b17b-42d1-8fab-d0adf26486fa",
                      "@[`{", "AZaz", "Ünïcødé ✓", "ünï", "ǅ", "İ", "ß", "ΣΑΣ", "a\u{0}Z"])
    func keyIsTheLowerCaseForm(id: String) {
        #expect(ItemID.key(id) == id.lowercased())
        #expect(Array(ItemID.key(id).utf8) == Array(id.lowercased().utf8))
    }

    /// `FieldName.problem` before it compared on bytes, verbatim.
    static func referenceProblem(_ name: String) -> String? {
        guard FieldName.isIdentifier(name, maximumLength: FieldName.maximumLength) else {
            return "\"\(name)\" is not a valid field name; use letters, digits and '_', starting with a letter or '_' (at most 128)"
        }
        let lower = name.lowercased()
        if name.hasPrefix("__") { return "\"\(name)\" is reserved: names starting with '__' are system properties" }
        if lower.hasPrefix("ms_") { return "\"\(name)\" is reserved: names starting with 'ms_' are system properties" }
        switch lower {
        case "createdat", "updatedat", "version", "deleted": return "\"\(name)\" is reserved: it is a system property"
        case "id": return "\"\(name)\" is reserved: the identity is 'id' and cannot be set as a field"
        default: return nil
        }
    }

    @Test func fieldNameProblemsAreWhatTheyWere() {
        let names = ["text", "complete", "id", "ID", "Id", "iD", "idx", "i", "_id", "createdAt", "CREATEDAT", "createdat", "createdAtX",
                     "updatedAt", "uPdAtEdAt", "version", "Version", "versions", "deleted", "DELETED", "delete", "__x", "__", "_",
                     "_x_", "ms_", "MS_x", "mS_version", "Ms_", "ms", "msx", "m_s", "ms__", "x__", "a1", "1a", "", "é", "na me",
                     "ms-x", String(repeating: "a", count: 128), String(repeating: "a", count: 129), "createdAt\u{301}", "Ｍs_x"]
        for name in names { #expect(FieldName.problem(name) == Self.referenceProblem(name), "\(name)") }
    }

    @Test func sameIsEqualityOfTheLowerCaseForms() {
        let base = Array("0123456789abcdefghijklmnop")
        var ids: [String] = ["", "AbC", "abc", "abd", "ünï", "ÜNÏ", "e\u{301}", "é"]
        for n in [1, 7, 8, 9, 15, 16, 17, 26] { ids.append(String(base.prefix(n))) }
        for n in [8, 17, 26] { for i in 0..<n { var c = Array(base.prefix(n)); c[i] = "Z"; ids.append(String(c)) } }
        for a in ids { for b in ids { #expect(ItemID.same(a, b) == (a.lowercased() == b.lowercased()), "\(a) \(b)") } }
    }
}
