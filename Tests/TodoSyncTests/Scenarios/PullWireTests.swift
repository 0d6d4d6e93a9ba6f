import Synchronization
import Testing
import TableProtocol
import TodoModel
import TodoTestSupport

/// What a pull tolerates in list bodies (protocol §10.4, §10.7): the three list shapes, members
/// that are not user fields, rows without a usable id, and date text kept exactly as sent.
@Suite struct PullWireTests {
    enum Shape: String, CaseIterable, Sendable { case array, results, items }

    /// A server answering the first list request with `rows` in `shape`, and every later one with no rows.
    static func serve(_ world: SyncWorld, _ rows: [JSONValue], shape: Shape) {
        let served = Mutex(0)
        world.script { request, service in
            guard request.method == "GET", request.target.hasPrefix("/tables/todoitem?") else { return service(request) }
            let page: [JSONValue] = served.withLock { n in n += 1; return n == 1 ? rows : [] }
            let body: JSONValue = switch shape {
            case .array: .array(page)
            case .results: ["results": .array(page), "count": .number(Double(page.count))]
            case .items: ["items": .array(page), "nextLink": .null]
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body.compactBytes())
        }
    }

    @Test("every list shape; odd members dropped with one warning each; rows without a valid id skipped", arguments: Shape.allCases)
    func lenientRows(_ shape: Shape) throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        let t = "2024-05-01T09:00:00.5Z"  // .NET drops trailing zeros: kept exactly as sent
        Self.serve(world, [
            ["id": "ok", "text": "a", "updatedAt": .string(t), "Version": "v1", "deleted": .null, "empty": .null,
             "__meta": 1, "nested": ["a": 1], "list": [1], "ms_hidden": "x", "bad name": true],
            ["text": "no id", "updatedAt": .string(t)],
            ["id": "bad/id", "updatedAt": .string(t)],
            ["id": 7, "updatedAt": .string(t)],
            ["id": "ok2", "text": "b", "updatedAt": .string(t), "__meta": 2, "ms_hidden": "y"],
        ], shape: shape)
        let a = world.replica("A")
        let pull = a.expect(0, "pull")
        #expect(a.itemIDs() == ["ok", "ok2"])
        let ok = try #require(a.item("ok"))
        #expect(Set(ok.keys) == ["id", "text", "ms_updatedAt", "ms_version"], "\(ok)")
        #expect(ok["ms_version"] == "v1" && ok["ms_updatedAt"] == .string(t))
        for name in ["__meta", "nested", "list", "ms_hidden", "bad name"] {
            #expect(pull.err.occurrences(of: "member '\(name)'") == 1, "one warning for \(name): \(pull.err)")
        }
        #expect(pull.err.occurrences(of: "without a valid id") == 3, "\(pull.err)")
        #expect(a.token() == ["id": "ok2", "updatedAt": .string(t)])
        // The cursor sends the server's own text back unchanged.
        #expect(world.pages().last?.query("$filter") == PullPagingTests.cursor(t, "ok2"))
    }

    @Test("a list body that is not a list stops the pull with exit 1; committed pages stay") func notAList() throws {
        let world = try SyncWorld(wire: .inProcess)
        defer { withExtendedLifetime(world) {} }
        world.script { request, service in
            guard request.method == "GET" else { return service(request) }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: JSONValue.object(["oops": true]).compactBytes())
        }
        let a = world.replica("A")
        let pull = a.expect(1, "pull")
        #expect(pull.err == "error: \(world.url) answered 200 with JSON that is not a list of rows, not the table protocol: check the URL (it should be the table server's base URL, e.g. http://127.0.0.1:8080)\n", "\(pull)")
        #expect(a.itemIDs().isEmpty)
    }
}

extension String {
    /// How many times `text` occurs in the string.
    func occurrences(of text: String) -> Int {
        split(separator: text, omittingEmptySubsequences: false).count - 1
    }
}
