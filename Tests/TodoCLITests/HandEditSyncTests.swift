#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoTestSupport

/// Issue 15 item 8 against a real `todo-server` and the built `todo`: a pull that brings a new
/// server copy of an item edited by hand here stops instead of overwriting the edit, and once the
/// edit is adopted the pull merges and the push publishes it.
@Suite(.serialized) struct HandEditSyncTests {
    static var build: String { Fixtures.root.parentPath.appendingPath(".build/debug") }

    @Test func aPullNeverOverwritesAHandEditAndAnAdoptedOneIsPushed() throws {
        #expect(LocalFileSystem().fileExists(Self.build + "/todo-server"), "build the binaries first (swift build)")
        let dir = TempDirectory()
        defer { dir.remove() }
        _ = TempDirectory.shell("cd '\(dir.path)' && { '\(Self.build)/todo-server' --data srv --port 0 --quiet > srv.log 2>&1 & echo $! > srv.pid; }")
        defer {
            let pid = pid_t(Self.read(dir.sub("srv.pid")).filter(\.isNumber)) ?? 0
            if pid > 0 { kill(pid, SIGTERM) }
        }
        var url = ""
        for _ in 0..<500 where url.isEmpty {
            let log = Self.read(dir.sub("srv.log"))
            if let range = log.firstRange(of: "http://") { url = String(log[range.lowerBound...].prefix { !$0.isWhitespace }) } else { usleep(10_000) }
        }
        #expect(!url.isEmpty, "todo-server started: \(Self.read(dir.sub("srv.log")))")
        func todo(_ replica: String, _ args: String) -> (code: Int32, out: String, err: String) {
            ProcessTests.sh("TODO_RETRY_WAIT_SCALE=0 '\(Self.build)/todo' \(args)", in: dir.sub(replica))
        }
        for replica in ["a", "b"] { try LocalFileSystem().createDirectory(dir.sub(replica)) }
        #expect(todo("a", "init --remote \(url)").code == 0)
        #expect(todo("a", "add 'first text' --id x").code == 0)
        #expect(todo("a", "push").code == 0)
        #expect(todo("b", "clone \(url)").code == 0)

        // B edits x's file by hand; A changes another field of x on the server.
        let item = dir.sub("b/.todo/tables/todoitem/items/x.json")
        let text = Self.read(item)
        try LocalFileSystem().writeFile(item, Array(text.replacingOccurrences(of: "first text", with: "edited by hand").utf8), sync: false)
        let edited = Self.read(item)
        #expect(todo("a", "done x").code == 0 && todo("a", "push").code == 0)

        let pull = todo("b", "pull")
        #expect(pull.code == 1, "\(pull)")
        #expect(pull.err.contains("error: .todo/tables/todoitem/items/x.json was edited by hand (text changed), and todo has not recorded it as a change\n"
                                  + "hint: record it with 'todo edit x --adopt', or put back what todo wrote with 'todo edit x --discard'\n"), "\(pull.err)")
        #expect(Self.read(item) == edited, "the edit is still there")

        // Adopted, the edit is a pending update: the pull merges A's change into it, the push publishes both.
        #expect(todo("b", "edit x --adopt").out == "adopted the edit of x (update #1 queued)\n")
        #expect(todo("b", "pull").code == 0)
        #expect(todo("b", "push").code == 0)
        #expect(todo("a", "pull").code == 0)
        let a = todo("a", "show x")
        let lines = a.out.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("complete:") && $0.hasSuffix(" true") }
                && lines.contains { $0.hasPrefix("text:") && $0.hasSuffix(" \"edited by hand\"") }, "A holds both changes: \(a)")
        #expect(todo("b", "doctor").code == 0 && todo("a", "doctor").code == 0)
    }

    static func read(_ path: String) -> String {
        String(decoding: (try? LocalFileSystem().readFile(path)).flatMap { $0 } ?? [], as: UTF8.self)
    }
}
