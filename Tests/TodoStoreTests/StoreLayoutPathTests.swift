import Testing
@testable import TodoStore

/// Paths built on bytes must spell what the string interpolation spelled.
@Suite struct StoreLayoutPathTests {
    @Test func itemPathIsWhatTheInterpolationSpelled() {
        let layout = StoreLayout(root: "/r/.todo")
        for table in ["todoitem", "", "a.b", "日本"] {
            for id in ["5d09cd5a-f305-4b59-afaf-5bb90148c216", "AbC", "a/b", "", "ünï", "e\u{301}", String(repeating: "x", count: 200)] {
                #expect(layout.item(table, id) == "tables/\(table)/items/\(IDEncoding.fileName(for: id)).json")
            }
        }
    }
}
