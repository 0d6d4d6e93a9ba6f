import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport

// Pieces the resolve scenarios (sync.md §12, 60–76 and 97) share: the conflict of scenario 59
// over the real server, a user's hand-written `resolved`, and the server's answers as well as the
// requests (the request log keeps only what the client sent).

extension SyncWorld {
    /// Scenario 59 against the real server: x synced with text "a" (v1); another client sets the
    /// text to "c" (v2); the replica's edit to "b" meets a 412 on push and becomes a conflict on
    /// `text`. Returns both versions; the request log starts afresh afterwards.
    func textConflict(_ replica: CLIHarness, _ id: String = "x",
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> (v1: String, v2: String) {
        let v1 = try #require(synced(replica, id), sourceLocation: sourceLocation)
        raw("PATCH", "/tables/todoitem/\(id)", body: ["text": "c"])
        let v2 = try #require(version(id), sourceLocation: sourceLocation)
        replica.expect(0, "edit", id, "--text", "b", sourceLocation: sourceLocation)
        replica.expect(3, "push", sourceLocation: sourceLocation)
        let conflict = try #require(replica.conflicts.first, sourceLocation: sourceLocation)
        #expect(conflict["status"] == 412, sourceLocation: sourceLocation)
        #expect(conflict["fields"] == ["text"], sourceLocation: sourceLocation)
        #expect(conflict["base"]?["ms_version"]?.stringValue == v1, sourceLocation: sourceLocation)
        #expect(conflict["server"]?["ms_version"]?.stringValue == v2, sourceLocation: sourceLocation)
        resetLog()
        return (v1, v2)
    }

    /// Passes every request to the real service and keeps each answer's JSON body by
    /// "METHOD path", in order: the undelete's new version, for instance, is only in its answer.
    func keepAnswers() -> ServerAnswers {
        let answers = ServerAnswers()
        script { request, service in
            let response = service(request)
            answers.add("\(request.method) \(request.path)", response)
            return response
        }
        return answers
    }
}

/// The answers a `keepAnswers` script saw.
final class ServerAnswers: Sendable {
    private let log = Mutex<[(String, Int, JSONValue?)]>([])

    func add(_ key: String, _ response: HTTPResponse) {
        let json = response.body.isEmpty ? nil : try? JSONValue.parse(response.body)
        log.withLock { $0.append((key, response.status, json)) }
    }

    /// The JSON bodies of the answers to "METHOD path", in order.
    func bodies(_ key: String) -> [JSONValue] { log.withLock { $0.filter { $0.0 == key }.compactMap(\.2) } }
}

extension CLIHarness {
    /// Writes `value` into the `resolved` member of the item's conflict file, as a user editing it
    /// would (§8.3.1): the rest of the file stays byte for byte.
    func writeResolution(_ id: String, _ value: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fs = LocalFileSystem()
        let dir = directory.appendingPath(".todo/conflicts")
        for name in try fs.listDirectory(dir) ?? [] where !name.hasPrefix(".") {
            let path = dir.appendingPath(name)
            guard let bytes = try fs.readFile(path), var o = (try JSONValue.parse(bytes)).objectValue,
                  o["id"]?.stringValue.map({ ItemID.same($0, id) }) == true else { continue }
            o["resolved"] = value
            try fs.writeFile(path, JSONValue.object(o).canonicalBytes(), sync: false)
            return
        }
        Issue.record("no conflict file for \(id)", sourceLocation: sourceLocation)
    }

    /// `status --json`'s conflict kinds by id (the names of sync.md §7.3).
    var conflictKinds: [String: String] {
        guard let json = try? JSONValue.parse(run("status", "--json").out) else { return [:] }
        var kinds: [String: String] = [:]
        for c in json["conflicts"]?.arrayValue ?? [] {
            if let id = c["id"]?.stringValue { kinds[id] = c["kind"]?.stringValue }
        }
        return kinds
    }
}
