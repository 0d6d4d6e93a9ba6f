import Synchronization
import TableProtocol
import TodoBasics
import TodoModel
import TodoSync
import TodoTestSupport

// Small pieces the push scenarios share: scripted answers, counters, and ways to put a replica
// into the state a killed push leaves behind.

/// Building blocks of scripted servers (the `script` hook of `SyncWorld`).
enum Scripted {
    /// Counts events across the server's threads ("fail the first two POSTs").
    final class Counter: Sendable {
        private let value = Mutex(0)
        /// Adds one and returns the new count (the first call returns 1).
        func next() -> Int { value.withLock { $0 += 1; return $0 } }
        var count: Int { value.withLock { $0 } }
    }

    /// A whole answer made up by a script.
    static func answer(_ status: Int, _ body: JSONValue? = nil, headers: [(String, String)] = []) -> HTTPResponse {
        var h = HTTPHeaders(headers)
        if body != nil { h.add(name: "Content-Type", value: "application/json") }
        return HTTPResponse(status: status, headers: h, body: body?.compactBytes() ?? [])
    }

    /// Holds the server thread on purpose, to make the client's request time out.
    static func stall(_ seconds: Double) { RetryPolicy.threadSleep(seconds) }
}

extension HTTPRequest {
    var isWrite: Bool { method != "GET" }
    /// The path without the query.
    var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
}

extension SyncWorld {
    /// The server's version text of a row, or nil.
    func version(_ id: String, table: String = "todoitem") -> String? { row(id, table: table)?["version"]?.stringValue }

    /// "A write reached the server, and every answer after it was lost": the first write is
    /// applied through the real service, then every request (the write's own reply included)
    /// is answered 503. A push meeting this stops with exit 4 and leaves its op sealed, exactly
    /// as a push killed after the request landed does.
    func landThenFail() {
        let landed = Scripted.Counter()
        script { request, service in
            if request.isWrite, landed.next() == 1 { _ = service(request) }
            return Scripted.answer(503, ["error": "unavailable"])
        }
    }

    /// Requests about the item: writes, reads by id, and the one-row queries for its server copy.
    func requests(for id: String, table: String = "todoitem") -> [Exchange] {
        requests().filter {
            $0.path == "/tables/\(table)/\(id)" || ($0.method == "POST" && $0.path == "/tables/\(table)" && $0.json?["id"]?.stringValue == id)
                || $0.isServerCopyQuery(for: id, table: table)
        }
    }

    /// `add` then `push` on the replica, so the item is synced at its first server version,
    /// which is returned. The request log starts afresh afterwards.
    @discardableResult
    func synced(_ replica: CLIHarness, _ id: String, text: String = "a", set: [String] = [], table: String = "todoitem") -> String? {
        let added = replica.run(["add", text, "--id", id, "--table", table] + set.flatMap { ["--set", $0] })
        let pushed = replica.run(["push"])
        precondition(added.code == 0 && pushed.code == 0, "setup of \(id) failed: \(added)\n\(pushed)")
        resetLog()
        return version(id, table: table)
    }
}

extension CLIHarness {
    /// Marks every pending op `attempted`, as a push killed after its marker commit leaves it.
    func sealOperations() {
        let fs = LocalFileSystem()
        let dir = directory.appendingPath(".todo/operations")
        for name in ((try? fs.listDirectory(dir)) ?? []) where !name.hasPrefix(".") {
            let path = dir.appendingPath(name)
            guard let bytes = try? fs.readFile(path), let json = try? JSONValue.parse(bytes), var o = json.objectValue else { continue }
            o["attempted"] = true
            o["attemptedAt"] = "2024-05-01T09:00:00.000Z"
            try? fs.writeFile(path, JSONValue.object(o).canonicalBytes(), sync: false)
        }
    }

    /// Rewrites one op file through `change` (for states only a crash or `resolve` makes).
    func rewriteOperation(_ sequence: Int, _ change: (inout [String: JSONValue]) -> Void) {
        let fs = LocalFileSystem()
        let dir = directory.appendingPath(".todo/operations")
        for name in ((try? fs.listDirectory(dir)) ?? []) where name.hasPrefix(String(repeating: "0", count: 10 - String(sequence).count) + "\(sequence).") {
            let path = dir.appendingPath(name)
            guard let bytes = try? fs.readFile(path), let json = try? JSONValue.parse(bytes), var o = json.objectValue else { continue }
            change(&o)
            try? fs.writeFile(path, JSONValue.object(o).canonicalBytes(), sync: false)
        }
    }

    /// Every record file of the replica (items, table state, operations, conflicts, receipts)
    /// by path, for "nothing changes" checks. `state.json` is left out: every commit bumps it.
    func snapshot() -> [String: String] {
        let fs = LocalFileSystem()
        var files: [String: String] = [:]
        func walk(_ relative: String) {
            let path = directory.appendingPath(".todo").appendingPath(relative)
            if fs.isDirectory(path) {
                for name in ((try? fs.listDirectory(path)) ?? []) where !name.hasPrefix(".") { walk(relative + "/" + name) }
            } else if let bytes = try? fs.readFile(path) {
                files[relative] = String(decoding: bytes, as: UTF8.self)
            }
        }
        for folder in ["tables", "operations", "conflicts", "receipts"] { walk(folder) }
        return files
    }
}
