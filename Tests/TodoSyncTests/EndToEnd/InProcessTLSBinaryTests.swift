import Testing
import TodoBasics
import TodoTestSupport

/// Issue 20 item 2 with the built binaries: push, clone and pull over https inside `todo` (no
/// helper: the one named by TODO_REMOTE_HELPER does not exist), through a TLS terminator whose
/// certificate comes from a throwaway CA outside the system's store.
@Suite(.enabled(if: TLSFixture.canTerminate, "needs python3 and openssl"))
struct InProcessTLSBinaryTests {
    typealias ServerProcess = BinaryTutorialTests.ServerProcess

    @Test func pushCloneAndPullOverHTTPSWithoutTheHelper() throws {
        let server = try ServerProcess()
        let serverPort = try #require(server.url.split(separator: ":").last.flatMap { Int($0) })
        let tls = try TLSFixture(backendPort: serverPort, privateCA: true)
        defer { tls.stop() }
        let url = "https://127.0.0.1:\(tls.port)"
        let env = "TODO_REMOTE_HELPER=/nonexistent/todo-remote-https"
        func todo(_ args: String, in replica: String) -> (code: Int32, out: String) {
            server.todo(args, in: replica, env: env)
        }

        #expect(todo("init --remote \(url)", in: "A").code == 0)
        for i in 0..<30 { #expect(todo("add 'task \(i)' --id t\(i)", in: "A").code == 0) }
        // An unknown CA: the sentence naming the fix, nothing sent, the changes kept.
        #expect(todo("push", in: "A").code == 4)
        // .err holds every command's stderr: the adds' "added as number N" lines first.
        #expect(server.read("A/.err") == (1...30).map { "added as number \($0)\n" }.joined()
            + "error: \(url): the server's TLS certificate is not trusted "
            + "(unable to get local issuer certificate): give the CA that signed it with 'todo remote set --ca-file PATH' "
            + "(or add it to the system's certificate store); your 30 changes are kept\n"
            + "hint: run 'todo push' again once that is fixed\n", "\(server.read("A/.err"))")
        #expect(!server.read("srv.log").contains("/tables/"), "no request reached the server: \(server.read("srv.log"))")
        #expect(server.serverText("t0") == nil)

        // --ca-file fixes it: push, clone, and an incremental pull.
        #expect(todo("remote set --ca-file '\(tls.caFile)'", in: "A").code == 0)
        let connections = tls.acceptedConnections
        #expect(todo("push", in: "A").code == 0, "\(server.read("A/.err"))")
        // The terminator passes each connection's pipelined requests on one at a time: the push
        // spreads its writes over 16 connections, so 16 are at the server at once.
        #expect(tls.acceptedConnections - connections >= 16, "\(tls.acceptedConnections - connections) connections")
        #expect(server.serverText("t29") == "task 29")
        #expect(todo("clone \(url) . --ca-file '\(tls.caFile)'", in: "B").code == 0, "\(server.read("B/.err"))")
        #expect(todo("show t12", in: "B").out.contains("task 12"))
        #expect(todo("edit t3 --text 'changed over TLS'", in: "A").code == 0)
        #expect(todo("push", in: "A").code == 0, "\(server.read("A/.err"))")
        #expect(todo("pull", in: "B").code == 0, "\(server.read("B/.err"))")
        #expect(todo("show t3", in: "B").out.contains("changed over TLS"))
    }
}
