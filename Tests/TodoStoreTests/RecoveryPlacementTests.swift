import Testing
import TodoBasics
@testable import TodoStore

/// A big commit joins each folder to the root once (`Recovery.placed`); every file must still
/// land where `absolute(path)` names it.
@Suite struct RecoveryPlacementTests {
    @Test(arguments: ["/r/.todo", "/r/.todo/", "/", "rel/.todo"])
    func placesEachFileWhereItsAbsolutePathNamesIt(root: String) {
        let layout = StoreLayout(root: root)
        let paths = ["config.json", "operations/0000000001.insert.todoitem.a.json", "operations/0000000002.insert.todoitem.b.json",
                     "tables/t/items/a.json", "tables/t/items/b.json", "tables/t/table.json", "tables/u/items/c.json",
                     "undo.json", "tables/é/items/ü.json"].sorted()
        let files: [(key: String, value: [UInt8]?)] = paths.enumerated().map { ($1, $0 % 2 == 0 ? [UInt8($0)] : nil) }
        let placed = Recovery.placed(files, in: layout)
        #expect(placed.count == paths.count)
        for (file, (path, content)) in zip(placed, files) {
            let absolute = layout.absolute(path)
            #expect(file.folder == absolute.parentPath, "\(path)")
            #expect(file.name == absolute.lastPathComponent, "\(path)")
            #expect(file.folder.appendingPath(file.name) == absolute, "\(path)")
            #expect(file.content == content)
        }
    }
}
