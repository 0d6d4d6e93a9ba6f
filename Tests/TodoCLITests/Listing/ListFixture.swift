import TodoBasics
import TodoTestSupport

/// A replica for `list` tests, driven through the built binary: four items as a pull leaves them
/// (oldest first by createdAt) and one local insert (after them, in queue order).
struct ListFixture {
    let dir = TempDirectory()
    static let buyMilk = "a1000000-0000-4000-8000-000000000001"
    static let payRent = "a1000000-0000-4000-8000-000000000002"
    static let callBob = "b2000000-0000-4000-8000-000000000003"
    static let water = "c3000000-0000-4000-8000-000000000004"
    static let local = "d4000000-0000-4000-8000-000000000005"

    init() {
        _ = todo("init")
        let items: [(String, String, Bool, Int?, Int)] = [
            (Self.water, "Water plants", false, nil, 4),
            (Self.buyMilk, "Buy milk", false, 2, 1),
            (Self.callBob, "Call Bob about the milk delivery schedule for next week", false, 3, 3),
            (Self.payRent, "Pay rent", true, 1, 2),
        ]
        for (id, text, complete, priority, second) in items { Self.writeItem(in: dir.path, id: id, text: text, complete: complete, priority: priority, second: second) }
        _ = todo("add 'Local one' --id \(Self.local)")
    }

    /// An item file as todo writes it after a pull (no `ms_written`: no hand edit can be seen).
    static func writeItem(in root: String, id: String, text: String, complete: Bool, priority: Int?, second: Int) {
        let time = "2024-05-01T09:00:0\(second).000Z"
        var lines = ["  \"complete\": \(complete)", "  \"id\": \"\(id)\"", "  \"ms_createdAt\": \"\(time)\"",
                     "  \"ms_updatedAt\": \"\(time)\"", "  \"ms_version\": \"AAAAAAAAAAE=\""]
        if let priority { lines.append("  \"priority\": \(priority)") }
        lines.append("  \"text\": \"\(text)\"")
        let path = root + "/.todo/tables/todoitem/items/\(id).json"
        try! LocalFileSystem().createDirectory(path.parentPath)
        try! LocalFileSystem().writeFile(path, Array(("{\n" + lines.joined(separator: ",\n") + "\n}\n").utf8), sync: false)
    }

    /// `todo ARGS` in the replica, by the built binary; `env` goes before it (`NO_COLOR=1`).
    func todo(_ args: String, env: String = "") -> (code: Int32, out: String, err: String) {
        ProcessTests.sh("\(env) '\(ProcessTests.binary)' \(args)", in: dir.path)
    }

    func remove() { dir.remove() }
}
