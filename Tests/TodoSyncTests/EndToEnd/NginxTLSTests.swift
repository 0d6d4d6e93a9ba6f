#if canImport(Glibc)
import Glibc
#endif
import Testing
import TableProtocol
import TodoBasics
import TodoSync
import TodoTestSupport

/// Issue 20 items 3 and 4: the README's two-replica conflict with the built binaries, through a
/// real nginx terminating TLS with each of the repo's configs: `deploy/nginx/todo-server.conf`
/// (HTTP proxy, `X-Forwarded-For`) and `deploy/nginx/todo-server-stream.conf` (stream module, the
/// PROXY protocol to `todo-server --proxy-protocol`); a certificate from a throwaway CA that no
/// system store holds, and replicas that trust it with `--ca-file`.
/// nginx runs unprivileged-style: its own prefix, pid and logs in a temp folder, in the
/// foreground, stopped at the end. A machine without nginx (or its stream module) fails here,
/// saying how to install it.
@Suite(.serialized) struct NginxTLSTests {
    typealias ServerProcess = BinaryTutorialTests.ServerProcess

    @Test(arguments: [NginxProcess.Flavor.http, .stream])
    func theTutorialConflictThroughNginxWithAPrivateCA(_ flavor: NginxProcess.Flavor) throws {
        let nginx = try #require(NginxProcess.binary, NginxProcess.missing)
        let tls = TempDirectory("todo-nginx")
        defer { tls.remove() }
        #expect(TempDirectory.shell("cd '\(tls.path)' && \(TLSFixture.privateCAScript())") == 0, "openssl made the CA and certificate")
        let port = try #require(NginxProcess.freePort())
        let url = "https://127.0.0.1:\(port)"
        // nginx reaches the server from 127.0.0.2 (proxy_bind below), the replicas are 127.0.0.1:
        // the log shows 127.0.0.1 only if X-Forwarded-For of the trusted proxy was believed, or
        // the source of the PROXY header nginx's stream module sent.
        let clientFrom = flavor == .http ? "--trusted-proxy 127.0.0.2" : "--proxy-protocol"
        let server = try ServerProcess(options: "--public-url \(url) \(clientFrom)")
        let serverPort = try #require(server.url.split(separator: ":").last.map(String.init))
        let proxy = try NginxProcess(flavor, binary: nginx, directory: tls, port: port, upstreamPort: serverPort)
        defer { proxy.stop() }

        // Without the CA file: one sentence naming the fix, and the change is kept.
        #expect(server.todo("init --remote \(url)", in: "A").code == 0)
        #expect(server.todo("add 'Mobile Services is Cool!' --id x", in: "A").code == 0)
        #expect(server.todo("push", in: "A").code == 4, "could not reach the server")
        #expect(server.read("A/.err") == "added as number 1\n"  // .err holds every command's stderr: add's first
            + "error: \(url): the server's TLS certificate is not trusted "
            + "(unable to get local issuer certificate): give the CA that signed it with 'todo remote set --ca-file PATH' "
            + "(or add it to the system's certificate store); your 1 change is kept\n"
            + "hint: run 'todo push' again once that is fixed\n")
        #expect(server.todo("pull", in: "A").code == 4)
        #expect(server.read("A/.err").hasSuffix("(or add it to the system's certificate store)\n"
            + "hint: nothing was lost; run 'todo pull' again once that is fixed\n"), "\(server.read("A/.err"))")
        #expect(server.todo("status --short", in: "A").out.contains("todoitem"), "the change is kept")

        // With it: the tutorial, over https through nginx.
        let ca = tls.sub("ca.pem")
        #expect(server.todo("remote set --ca-file '\(ca)'", in: "A").code == 0)
        #expect(server.todo("push", in: "A").code == 0, "\(server.read("A/.err"))")
        #expect(server.todo("clone \(url) . --ca-file '\(ca)'", in: "B").code == 0, "\(server.read("B/.err"))")
        #expect(server.todo("edit x --text 'I love Mobile Services!'", in: "A").code == 0)
        #expect(server.todo("push", in: "A").code == 0)
        #expect(server.todo("edit x --text 'I love Azure!'", in: "B").code == 0)
        let push = server.todo("push", in: "B")
        #expect(push.code == 3)
        #expect(push.out.contains("conflict (412): text changed on both sides"), "\(push.out)")
        #expect(server.todo("status --short", in: "B").out.contains("C  todoitem  x"))
        #expect(LocalFileSystem().fileExists(server.dir.sub("B/.todo/conflicts/todoitem.x.json")), "the conflict file")
        #expect(server.todo("resolve x --use-client", in: "B").code == 0)
        #expect(server.todo("push", in: "B").code == 0)
        #expect(server.todo("pull", in: "A").code == 0)
        #expect(server.todo("show x", in: "A").out.contains("I love Azure!"))
        if flavor == .http {
            #expect(server.serverText("x") == "I love Azure!")
        } else {
            #expect(server.todo("clone \(url) . --ca-file '\(ca)'", in: "C").code == 0, "\(server.read("C/.err"))")
            #expect(server.todo("show x", in: "C").out.contains("I love Azure!"))
        }

        // The server's log names the replicas (from nginx's X-Forwarded-For or PROXY header), not nginx.
        let lines = server.read("srv.log").split(separator: "\n").filter { $0.contains(" /tables/") }
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("127.0.0.1 ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("127.0.0.1 PATCH /tables/todoitem/x ") }, "\(lines)")
        let through = flavor == .http ? "PATCH /tables/todoitem/x" : "127.0.0.1 TCP "
        #expect(proxy.accessLog().contains(through), "the connections went through nginx: \(proxy.accessLog())")
        if flavor == .stream {
            let direct = server.http("GET", "/tables/todoitem/x", headers: [("ZUMO-API-VERSION", "2.0.0")])
            #expect(direct.status == 400, "a request without the PROXY header is refused")
        }
    }

    /// `--public-url` is what Location and Link carry, whatever Host the proxy sends.
    @Test func locationAndLinkCarryThePublicURL() throws {
        let server = try ServerProcess(options: "--public-url https://todo.example.org/ --page-size 1")
        let endpoint = try RemoteEndpoint(parsing: server.url)
        let transport = SocketTransport(endpoint: endpoint)
        defer { transport.close() }
        func send(_ method: String, _ target: String, _ body: String = "") throws -> HTTPResponse {
            var headers: HTTPHeaders = ["ZUMO-API-VERSION": "2.0.0", "Host": "127.0.0.1:1"]
            if !body.isEmpty { headers.add(name: "Content-Type", value: "application/json") }
            return try transport.send(HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8))).get()
        }
        let inserted = try send("POST", "/tables/todoitem", #"{"id":"a","text":"one"}"#)
        #expect(inserted.status == 201)
        #expect(inserted.headers["Location"] == "https://todo.example.org/tables/todoitem/a")
        #expect(try send("POST", "/tables/todoitem", #"{"id":"b","text":"two"}"#).status == 201)
        let page = try send("GET", "/tables/todoitem")
        #expect(page.headers["Link"]?.hasPrefix("https://todo.example.org/tables/todoitem?") == true, "\(page.headers)")
        #expect(page.headers["Link"]?.hasSuffix("; rel=next") == true)
    }
}

/// A real nginx in the foreground with one of the repo's configs, its files in `directory`.
final class NginxProcess {
    let directory: TempDirectory
    let pid: pid_t

    enum Flavor: Sendable, CustomStringConvertible {
        /// `deploy/nginx/todo-server.conf`: an HTTP reverse proxy (inside `http`).
        case http
        /// `deploy/nginx/todo-server-stream.conf`: TLS only, then the PROXY protocol (a `stream` block).
        case stream

        var config: String {
            Fixtures.root.parentPath.appendingPath(self == .http ? "deploy/nginx/todo-server.conf" : "deploy/nginx/todo-server-stream.conf")
        }

        var description: String { self == .http ? "HTTP proxy" : "stream module" }
    }

    /// Debian's place for the stream module (`libnginx-mod-stream`); loaded when it is there.
    static let streamModule = "/usr/lib/nginx/modules/ngx_stream_module.so"

    static let missing: Comment = """
        nginx is not installed, and this test never skips: install it with `apt-get install nginx-light` \
        (.ci/run does this when it is missing)
        """

    /// nginx on PATH or in /usr/sbin (not on a normal user's PATH on Debian).
    static var binary: String? {
        let path = (ProcessEnvironment.current()["PATH"] ?? "") + ":/usr/sbin:/usr/local/sbin"
        return path.split(separator: ":").map { "\($0)/nginx" }.first { access($0, X_OK) == 0 }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The repo's config with the CHANGE lines pointed at this test's port, certificate and
    /// upstream, and nginx connecting to the server from 127.0.0.2; fails if a line the test
    /// replaces is no longer in the file.
    init(_ flavor: Flavor = .http, binary: String, directory: TempDirectory, port: Int, upstreamPort: String) throws {
        self.directory = directory
        let fs = LocalFileSystem()
        guard let bytes = try fs.readFile(flavor.config) else { throw Failure(description: "\(flavor.config) is missing") }
        var site = String(decoding: bytes, as: UTF8.self)
        let pass = flavor == .http ? "proxy_pass http://todo_server;" : "proxy_pass todo_server;"
        let dir = directory.path
        var replacements = [
            ("server 127.0.0.1:8080;", "server 127.0.0.1:\(upstreamPort);"),
            ("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"),
            ("/etc/ssl/todo-server/fullchain.pem", directory.sub("cert.pem")),
            ("/etc/ssl/todo-server/privkey.pem", directory.sub("key.pem")),
            (pass, "\(pass)\n        proxy_bind 127.0.0.2;"),
        ]
        if flavor == .stream {
            // One access log line per connection: the client, and that nginx passed it on.
            replacements.append(("stream {", "stream {\n    log_format todo '$remote_addr $protocol $status';\n"
                + "    access_log \(dir)/access.log todo;"))
        }
        for (old, new) in replacements {
            guard site.contains(old) else { throw Failure(description: "\(flavor.config) no longer has '\(old)'") }
            site = site.replacing(old, with: new)
        }
        let user = getuid() == 0 ? "user root;\n" : ""
        let module = flavor == .stream && access(Self.streamModule, R_OK) == 0 ? "load_module \(Self.streamModule);\n" : ""
        let main = """
            \(module)\(user)worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log;
            events { worker_connections 64; }
            http {
                access_log \(dir)/access.log;
                client_body_temp_path \(dir)/body;
                proxy_temp_path \(dir)/proxy;
                fastcgi_temp_path \(dir)/fastcgi;
                uwsgi_temp_path \(dir)/uwsgi;
                scgi_temp_path \(dir)/scgi;
            \(flavor == .http ? site : "")
            }
            \(flavor == .stream ? site : "")

            """
        try fs.writeFile(directory.sub("nginx.conf"), Array(main.utf8), sync: false)
        _ = TempDirectory.shell("""
            cd '\(dir)' && { '\(binary)' -p '\(dir)' -c '\(dir)/nginx.conf' -e '\(dir)/error.log' -g 'daemon off;' \
            > nginx.out 2>&1 & echo $! > nginx.run; }
            """)
        pid = pid_t(Self.read(directory.sub("nginx.run")).filter(\.isNumber)) ?? 0
        for _ in 0..<500 {
            if Self.accepts(port) { return }
            if pid == 0 || kill(pid, 0) != 0 { break }
            usleep(10_000)
        }
        stop()
        let hint = flavor == .stream ? " (the stream module: apt-get install libnginx-mod-stream; .ci/run installs it when missing)" : ""
        throw Failure(description: "nginx did not start\(hint): \(Self.read(directory.sub("nginx.out"))) \(Self.read(directory.sub("error.log")))")
    }

    func accessLog() -> String { Self.read(directory.sub("access.log")) }

    /// SIGQUIT (graceful stop), then waits until the master is gone.
    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGQUIT)
        for _ in 0..<500 {
            if kill(pid, 0) != 0 { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
    }

    static func read(_ path: String) -> String {
        ((try? LocalFileSystem().readFile(path)) ?? nil).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// A port nobody listens on now (the kernel's pick for port 0).
    static func freePort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
