import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport

/// Issue 19 item 4, as people see it: push, pull and clone against a URL that answers a web page
/// or a redirect, on a real socket. One sentence on stderr, no HTML, exit 1, nothing lost.
@Suite struct WrongURLCommandTests {
    static let page = Array("<!DOCTYPE html>\n<html><body><h1>It works!</h1></body></html>".utf8)

    static func webPage(_ status: Int) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/html"], body: page)
    }

    static func pageSentence(_ world: SyncWorld, status: Int) -> String {
        "\(world.url) answered with a web page (text/html, status \(status)), not the table protocol: "
            + "check the URL (it should be the table server's base URL, e.g. http://127.0.0.1:8080)"
    }

    @Test func pushToAWebPageKeepsEveryChange() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "one", "--id", "x1")
        a.expect(0, "add", "two", "--id", "x2")
        world.script { _, _ in Self.webPage(405) }
        let before = a.snapshot()
        let push = a.expect(1, "push")
        #expect(push.err == "error: \(Self.pageSentence(world, status: 405)); your 2 changes are kept\n", "\(push)")
        #expect(a.snapshot() == before)
    }

    @Test func pushRedirectedNamesTheURLToSet() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        a.expect(0, "add", "one", "--id", "x1")
        world.script { _, _ in HTTPResponse(status: 308, headers: ["Location": "https://todo.example/api/tables/todoitem"]) }
        let push = a.expect(1, "push")
        #expect(push.err == "error: \(world.url) redirects to https://todo.example/api/tables/todoitem: "
            + "set that URL with 'todo remote set https://todo.example/api'; your 1 change is kept\n", "\(push)")
        #expect(world.requests().count == 1)
    }

    @Test func pullFromAWebPage() throws {
        let world = try SyncWorld(wire: .inProcess)
        let a = world.replica("A")
        world.script { _, _ in Self.webPage(404) }
        let before = a.storeFiles()
        let pull = a.expect(1, "pull")
        #expect(pull.err == "error: \(Self.pageSentence(world, status: 404))\n", "\(pull)")
        #expect(a.storeFiles() == before)
    }

    @Test func cloneOfAWebPageLeavesNoFolder() throws {
        let world = try SyncWorld(wire: .inProcess)
        let dir = TempDirectory("todo-clone")
        defer { dir.remove() }
        world.script { _, _ in Self.webPage(200) }
        let shell = world.harness(dir.path, environment: ["TODO_RETRY_WAIT_SCALE": "0"])
        let clone = shell.run("clone", world.url, "c")
        #expect(clone.code == 1, "\(clone)")
        #expect(clone.err.hasPrefix("error: \(Self.pageSentence(world, status: 200))\n"), "\(clone)")
        #expect(!clone.err.contains("<html") && !clone.out.contains("<html"))
        #expect(!LocalFileSystem().fileExists(dir.sub("c")))
    }
}
