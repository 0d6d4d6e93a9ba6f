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
}
