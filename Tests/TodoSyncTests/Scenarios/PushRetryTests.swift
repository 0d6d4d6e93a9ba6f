import Testing
import TodoModel
import TodoTestSupport

/// sync.md §12, lost replies, timeouts and 5xx: scenarios 24, 31, 33 and 91. Timeouts are
/// provoked on purpose: the script holds the reply longer than the replica's
/// `TODO_REQUEST_TIMEOUT`.
@Suite struct PushRetryTests {
    /// Generous enough that a real request (fsync included) never times out on a busy machine.
    static let timeout = ["TODO_REQUEST_TIMEOUT": "0.75"]
    static let pastTimeout = 1.2

    @Test("24: conflict, success, timeout: x conflicts, y lands, z stays sealed, w is not sent, exit 4") func conflictSuccessTimeout() throws {
        let world = try SyncWorld()
        let a = world.replica("A", environment: Self.timeout)
        world.synced(a, "x")
        a.expect(0, "edit", "x", "--text", "b")
        a.expect(0, "add", "y", "--id", "y")
        a.expect(0, "add", "z", "--id", "z")
        a.expect(0, "add", "w", "--id", "w")
        world.raw("PATCH", "/tables/todoitem/x", body: ["text": "c"])
        let w = try #require(a.operations.last)
        let zPosts = Scripted.Counter()
        world.script { request, service in
            if request.method == "POST", (try? JSONValue.parse(request.body))?["id"] == "z" {
                _ = zPosts.next()
                Scripted.stall(Self.pastTimeout)
                return Scripted.answer(503)  // never applied
            }
            return service(request)
        }
        world.resetLog()
        let push = a.expect(4, "push", "--jobs", "1")
        #expect(push.err.contains("no response within"), "\(push)")
        #expect(a.conflicts.map { $0["id"] } == ["x"])
        #expect(world.row("y") != nil)
        #expect(world.row("z") == nil)
        #expect(world.requests(for: "w").isEmpty)
        // Three attempts for z, the second and third after a replay check. (A stalled POST is
        // logged only when its stall ends, so the POSTs are counted by the script.)
        #expect(zPosts.count == 3)
        #expect(world.requests(for: "z").filter { $0.method == "GET" }.count == 2)
        let ops = a.operations
        #expect(ops.map { $0["id"] } == ["x", "z", "w"])
        #expect(ops.map { $0["attempted"] } == [false, true, false])
        #expect(ops.last == w, "w is exactly as it was")
    }

    @Test("31: an insert whose reply was lost is completed by the next push, without a second row") func lostReplyNextPush() throws {
        let world = try SyncWorld()
        let a = world.replica("A", environment: Self.timeout)
        a.expect(0, "add", "a", "--id", "x")
        let posts = Scripted.Counter()
        world.script { request, service in
            if request.method == "POST", posts.next() == 1 {
                _ = service(request)
                Scripted.stall(Self.pastTimeout)
                return Scripted.answer(503)
            }
            return Scripted.answer(503, ["error": "down"])
        }
        a.expect(4, "push")
        #expect(posts.count == 1, "no second POST while the replay check cannot see the server")
        #expect(a.operations.first?["attempted"] == true)
        world.script(nil)
        world.resetLog()
        let push = a.expect(0, "push")
        #expect(world.writes().isEmpty)
        #expect(world.rows().count == 1)
        #expect(a.operations.isEmpty)
        #expect(a.receipts.last?["rule"] == "insert-exists")
        #expect(push.out.contains("1 replayed"), "\(push)")
    }

    @Test("91: a lost reply within one push: timeout, replay check finds the row, exit 0") func lostReplyWithinPush() throws {
        let world = try SyncWorld()
        let a = world.replica("A", environment: Self.timeout)
        a.expect(0, "add", "a", "--id", "x")
        let posts = Scripted.Counter()
        world.script { request, service in
            let response = service(request)
            if request.method == "POST", posts.next() == 1 { Scripted.stall(Self.pastTimeout) }
            return response
        }
        let push = a.expect(0, "push")
        #expect(posts.count == 1, "no second POST")
        #expect(world.requests().filter { $0.method == "GET" }.map(\.status) == [200], "one replay check")
        #expect(world.rows().count == 1)
        #expect(a.operations.isEmpty)
        #expect(a.receipts.last?["rule"] == "insert-exists")
        #expect(a.item("x")?["ms_version"]?.stringValue == world.version("x"))
        #expect(push.out.contains("ok (replayed: insert-exists)"), "\(push)")
    }

    @Test("33: 503 twice then 201: three attempts, success, exit 0") func serverErrorsRetried() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        let posts = Scripted.Counter()
        world.script { request, service in
            if request.method == "POST", posts.next() <= 2 { return Scripted.answer(503, ["error": "busy"]) }
            return service(request)
        }
        let push = a.expect(0, "push")
        #expect(world.requests().map { "\($0.method) \($0.status)" }
                == ["POST 503", "GET 200", "POST 503", "GET 200", "POST 201"])
        #expect(world.requests().filter { $0.method == "GET" }.allSatisfy { $0.isServerCopyQuery(for: "x") })
        #expect(world.rows().count == 1)
        #expect(a.operations.isEmpty)
        #expect(push.out.contains("1 ok"), "\(push)")
    }

    @Test("33: 503 every time: three attempts, exit 4, the op remains sealed") func serverErrorsExhausted() throws {
        let world = try SyncWorld()
        let a = world.replica("A")
        a.expect(0, "add", "a", "--id", "x")
        world.script { request, service in
            request.method == "POST" ? Scripted.answer(503, ["error": "busy"]) : service(request)
        }
        let push = a.expect(4, "push", "--json")
        #expect(world.writes().count == 3)
        #expect(world.row("x") == nil)
        #expect(a.operations.count == 1)
        #expect(a.operations.first?["attempted"] == true, "a 5xx may come after the write applied")
        let report = try JSONValue.parse(push.out)
        #expect(report["stop"]?["kind"] == "server")
        #expect(report["stop"]?["status"] == 503)
        #expect(report["remaining"] == 1)
    }

    @Test("§3.5.4: a 401 after a timed-out attempt leaves the op sealed") func definitiveAnswerAfterMaybeLanded() throws {
        let world = try SyncWorld()
        let a = world.replica("A", environment: Self.timeout)
        a.expect(0, "add", "a", "--id", "x")
        let posts = Scripted.Counter()
        world.script { request, service in
            guard request.method == "POST" else { return service(request) }
            if posts.next() == 1 {
                Scripted.stall(Self.pastTimeout)  // still being worked on when the client gives up
                return Scripted.answer(503)
            }
            return Scripted.answer(401, ["error": "key revoked"])
        }
        a.expect(4, "push")
        #expect(posts.count == 2)
        // The 401 says nothing about the first POST, which may still land: the marker stays.
        #expect(a.operations.first?["attempted"] == true)
    }
}
