import Testing
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoStore

/// Lock-free readers read `state.json` before they look for a journal, so every commit, small
/// (each file fsynced in place) or large (written on threads, one syncfs), renames a whole
/// `state.json` into place and never writes it in place, where a reader could take half of it.
@Suite struct StateFileRenameTests {
    static func commit(items count: Int) throws -> (state: [CountingFileSystem.Call], all: [CountingFileSystem.Call]) {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = CountingFileSystem()
        let store = try makeStore(dir, fs: fs)
        var tx = try store.transaction()
        for n in 0..<count { tx.putItem(Item(id: "i\(n)", fields: ["text": .string("t\(n)")]), table: "todoitem") }
        fs.reset()
        try store.commit(tx)
        return (fs.calls.filter { $0.path.hasSuffix("/state.json") }, fs.calls)
    }

    @Test(arguments: [1, Recovery.bulkThreshold + 4])
    func everyCommitRenamesStateIntoPlace(items: Int) throws {
        let (state, all) = try Self.commit(items: items)
        #expect(state.contains { $0.kind == .rename }, "\(items) items: state.json renamed into place; calls on it: \(state)")
        #expect(!state.contains { $0.kind == .write }, "\(items) items: state.json never written in place: \(state)")
        #expect(all.filter { $0.kind == .write && $0.path.contains("/items/") }.count == items, "\(items) items written")
    }
}
