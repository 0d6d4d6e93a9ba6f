#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TableProtocol
import TodoModel
import TodoSync
import TodoTestSupport

/// The tutorial's two-device conflict with the built binaries: a real `todo-server` process and
/// two replicas driven by real `todo` processes (issue 4, "Tests"), plus the REST-client variant.
@Suite(.serialized) struct BinaryTutorialTests {
    static let build = Fixtures.root.parentPath.appendingPath(".build/debug")

    /// A running `todo-server` process in a temp folder, stopped at deinit.
    final class ServerProcess {
        let dir = TempDirectory("todo-e2e")
        var url = ""

        let appKey: String?
        /// More options of `todo-server`, as shell words (e.g. `--tables a,b:hardDelete`).
        let options: String

        init(appKey: String? = nil, options: String = "") throws {
            self.appKey = appKey
            self.options = options
            start(port: 0)
        }

        /// Starts `todo-server` on `srv/` and waits for its "listening on" line.
        private func start(port: Int) {
            let key = appKey.map { " --app-key '\($0)'" } ?? ""
            _ = TempDirectory.shell("cd '\(dir.path)' && { '\(build)/todo-server' --data srv --port \(port)\(key) \(options) > srv.log 2>&1 & echo $! > srv.pid; }")
            for _ in 0..<500 {
                let log = read("srv.log")
                if let range = log.firstRange(of: "http://") {
                    url = String(log[range.lowerBound...].prefix { !$0.isWhitespace })
                    return
                }
                usleep(10_000)
            }
            Issue.record("todo-server did not start: \(read("srv.log"))")
        }

        /// SIGKILL, as a crash would. Returns once the process is gone (or a zombie: its files and
        /// sockets are closed then), so that a restart finds the data directory's lock free.
        func killNine() {
            let pid = pid_t(read("srv.pid").filter(\.isNumber)) ?? 0
            guard pid > 0 else { Issue.record("no server pid in srv.pid"); return }
            kill(pid, SIGKILL)
            for _ in 0..<1_000 {
                let stat = (try? LocalFileSystem().readFile("/proc/\(pid)/stat")).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) }
                guard let stat, let close = stat.lastIndex(of: ")") else { return }
                if stat[close...].dropFirst(2).first == "Z" { return }
                usleep(10_000)
            }
            Issue.record("todo-server \(pid) still runs after SIGKILL")
        }

        /// Starts the server again on the same data directory and port, as after a crash: the
        /// replicas keep their remote URL.
        func restart() {
            let before = url
            guard let port = before.split(separator: ":").last.flatMap({ Int($0) }) else { Issue.record("no port in \(before)"); return }
            unlink(dir.sub("srv.log"))
            url = ""
            start(port: port)
            if url != before { Issue.record("the restarted server listens on \(url), not \(before)") }
        }

        deinit {
            _ = TempDirectory.shell("kill $(cat '\(dir.path)/srv.pid') 2>/dev/null; sleep 0.1")
            dir.remove()
        }

        func read(_ name: String) -> String {
            (try? LocalFileSystem().readFile(dir.path.appendingPath(name))).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        }

        /// Runs a shell command in `sub` (created), returning exit code and stdout.
        @discardableResult
        func sh(_ command: String, in sub: String, env: String = "") -> (code: Int32, out: String) {
            let path = dir.path.appendingPath(sub)
            try? LocalFileSystem().createDirectory(path)
            let code = TempDirectory.shell("cd '\(path)' && unset TODO_DIR && { \(env) \(command) ; } > .out 2>> .err")
            return (code, read(sub + "/.out"))
        }

        func todo(_ args: String, in replica: String, env: String = "") -> (code: Int32, out: String) {
            sh("\(env) '\(build)/todo' \(args)", in: replica)
        }

        /// One raw HTTP request to the server process, with our own socket transport.
        func http(_ method: String, _ target: String, body: String? = nil, headers: [(String, String)]) -> (status: Int, json: JSONValue?) {
            guard let endpoint = try? RemoteEndpoint(parsing: url) else { return (0, nil) }
            let transport = SocketTransport(endpoint: endpoint)
            defer { transport.close() }
            var h = HTTPHeaders(headers)
            if body != nil { h.add(name: "Content-Type", value: "application/json") }
            let request = HTTPRequest(method: method, target: target, headers: h, body: Array((body ?? "").utf8))
            guard case .success(let response) = transport.send(request) else { return (0, nil) }
            return (response.status, try? JSONValue.parse(response.body))
        }

        /// The server's text of an item, as a G2 client reads it.
        func serverText(_ id: String, appKey: String? = nil) -> String? {
            var headers = [("ZUMO-API-VERSION", "2.0.0")]
            if let appKey { headers.append(("X-ZUMO-APPLICATION", appKey)) }
            return http("GET", "/tables/todoitem/\(id)", headers: headers).json?["text"]?.stringValue
        }
    }

    /// A and B synced on x; A pushes its text, B's push of another text conflicts (exit 3).
    func conflict(_ server: ServerProcess) {
        #expect(server.todo("init --remote \(server.url)", in: "A").code == 0)
        #expect(server.todo("add 'Mobile Services is Cool!' --id x", in: "A").code == 0)
        #expect(server.todo("push", in: "A").code == 0)
        #expect(server.todo("clone \(server.url) .", in: "B").code == 0)
        #expect(server.todo("edit x --text 'I love Mobile Services!'", in: "A").code == 0)
        #expect(server.todo("push", in: "A").code == 0)
        #expect(server.todo("edit x --text 'I love Azure!'", in: "B").code == 0)
        let push = server.todo("push", in: "B")
        #expect(push.code == 3)
        #expect(push.out.contains("conflict (412): text changed on both sides"), "\(push.out)")
        #expect(server.todo("status --short", in: "B").out.contains("C  todoitem  x"))
    }

    @Test func useClientMakesTheServerHoldThatReplicasText() throws {
        #expect(LocalFileSystem().fileExists(Self.build + "/todo-server"), "build the binaries first (swift build)")
        let server = try ServerProcess()
        conflict(server)
        #expect(server.todo("resolve x --use-client", in: "B").code == 0)
        #expect(server.todo("push", in: "B").code == 0)
        #expect(server.serverText("x") == "I love Azure!")
        #expect(server.todo("pull", in: "A").code == 0)
        #expect(server.todo("show x", in: "A").out.contains("I love Azure!"))
        #expect(server.todo("doctor", in: "A").code == 0 && server.todo("doctor", in: "B").code == 0)
    }

    @Test func useServerMakesTheReplicaHoldTheServersText() throws {
        let server = try ServerProcess()
        conflict(server)
        #expect(server.todo("resolve x --use-server", in: "B").code == 0)
        #expect(server.todo("show x", in: "B").out.contains("I love Mobile Services!"))
        #expect(server.todo("push", in: "B").code == 0)
        #expect(server.serverText("x") == "I love Mobile Services!")
        #expect(!server.todo("status --short", in: "B").out.contains("todoitem"), "nothing pending, no conflict")
    }

    @Test func theOtherSideIsARawHTTPPatch() throws {
        for strategy in ["--use-client", "--use-server"] {
            let server = try ServerProcess(appKey: "k")
            let env = "TODO_APP_KEY=k"
            #expect(server.todo("init --remote \(server.url)", in: "A", env: env).code == 0)
            #expect(server.todo("add 'Mobile Services is Cool!' --id x", in: "A", env: env).code == 0)
            #expect(server.todo("push", in: "A", env: env).code == 0)
            let patch = server.http("PATCH", "/tables/todoitem/x?__systemproperties=__version",
                                    body: #"{"id":"x","text":"I love Azure!"}"#, headers: [("x-zumo-application", "k")])
            #expect(patch.status == 200)
            #expect(patch.json?["__version"]?.stringValue != nil)
            #expect(server.todo("edit x --text 'I love Mobile Services!'", in: "A", env: env).code == 0)
            #expect(server.todo("push", in: "A", env: env).code == 3)
            #expect(server.todo("resolve x \(strategy)", in: "A", env: env).code == 0)
            #expect(server.todo("push", in: "A", env: env).code == 0)
            let expected = strategy == "--use-client" ? "I love Mobile Services!" : "I love Azure!"
            #expect(server.serverText("x", appKey: "k") == expected)
            #expect(server.todo("show x", in: "A", env: env).out.contains(expected))
        }
    }

    /// Progress goes to stderr only when it is a terminal (issue 4, "Progress"): under a pseudo
    /// terminal (`script`) the push draws its counter line; with stderr in a file, nothing extra.
    @Test func progressOnlyOnATerminal() throws {
        let server = try ServerProcess()
        for replica in ["A", "B"] {
            #expect(server.todo("init --remote \(server.url)", in: replica).code == 0)
            for i in 0..<3 { #expect(server.todo("add \(replica)\(i)", in: replica).code == 0) }
        }
        let plain = server.sh("'\(Self.build)/todo' push 2> push.err; cat push.err", in: "A")
        #expect(plain.code == 0)
        #expect(plain.out.contains("pushed 3 operations"))
        #expect(!plain.out.contains("push: "), "no progress without a terminal: \(plain.out)")
        let terminal = server.sh("script -q -c \"'\(Self.build)/todo' push\" /dev/null", in: "B")
        #expect(terminal.out.contains("\r\u{1B}[Kpush: 3/3 operations"), "\(terminal.out)")
        #expect(terminal.out.contains("pushed 3 operations"))
    }
}
