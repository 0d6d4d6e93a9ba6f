#if canImport(Glibc)
import Glibc
#endif
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
import TodoServer

/// One real table server on 127.0.0.1:0 and the replicas of one simulated run.
///
/// Why its own harness: `SyncWorld` lives in TodoSyncTests and carries scripting and request logs
/// the simulation does not need. Why /dev/shm: thousands of commits per run, and the simulation
/// proves convergence, not durability (the crash campaign does that), so fsync on tmpfs keeps the
/// 200 seeds of `swift test` inside their time budget while every byte still goes through files.
final class SimWorld: @unchecked Sendable {
    let root: String
    let storage: TableStorage
    let service: TableService
    let server: HTTPServer
    let port: Int

    init() throws {
        root = SimWorld.makeTemporaryDirectory()
        var config = ServiceConfiguration()
        config.dynamicTables = true
        storage = try TableStorage(directory: root.appendingPath("server"))
        service = try TableService(configuration: config, storage: storage)
        let service = self.service
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
                            answer: { service.answer(to: $0) },
                            errorResponse: { service.errorResponse(status: $0, message: $1) },
                            log: { _ in })
        port = try server.start()
    }

    deinit {
        server.stop()
        SimWorld.removeTree(root)
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// A new replica in `name/`, initialised against this server (no pull yet).
    func replica(_ name: String) -> CLIHarness {
        let dir = root.appendingPath(name)
        try? LocalFileSystem().createDirectory(dir)
        let cli = CLIHarness(directory: dir, environment: ["TODO_RETRY_WAIT_SCALE": "0", "TODO_REQUEST_TIMEOUT": "5", "TODO_PUSH_BATCH": "2", "TODO_PUSH_CONNECTIONS": "1"])
        let result = cli.run(["init", "--remote", url, "--protocol", "mobile-apps"])
        precondition(result.code == 0, "init failed: \(result)")
        return cli
    }

    /// Every row of the table, deleted ones included, as a G2 client sees them: the server's truth.
    func allRows(table: String = "todoitem") -> [[String: JSONValue]] {
        let reply = raw("GET", "/tables/\(table)?__includeDeleted=true&$top=1000")
        return (reply.json?.arrayValue ?? []).compactMap(\.objectValue)
    }

    /// One request straight to the service (no socket): how "another client" seeds the server.
    @discardableResult
    func raw(_ method: String, _ target: String, body: JSONValue? = nil) -> (status: Int, json: JSONValue?) {
        var h = HTTPHeaders([])
        h.add(name: "ZUMO-API-VERSION", value: "2.0.0")
        if body != nil { h.add(name: "Content-Type", value: "application/json") }
        h.add(name: "Host", value: "127.0.0.1:\(port)")
        let response = service.respond(to: HTTPRequest(method: method, target: target, headers: h,
                                                       body: body?.compactBytes() ?? []))
        return (response.status, response.body.isEmpty ? nil : try? JSONValue.parse(response.body))
    }

    static func makeTemporaryDirectory() -> String {
        let base = LocalFileSystem().isDirectory("/dev/shm") ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/todo-sim-XXXXXX".utf8CString)
        let result = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(result != nil, "mkdtemp failed")
        return String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    static func removeTree(_ path: String) {
        let fs = LocalFileSystem()
        if fs.isDirectory(path) {
            for name in (try? fs.listDirectory(path)) ?? [] { removeTree(path.appendingPath(name)) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
