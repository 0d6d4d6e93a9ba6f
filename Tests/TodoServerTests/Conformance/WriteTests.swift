import Dispatch
import Synchronization
import Testing
import TableProtocol
import TodoModel
@testable import TodoServer

/// Checklist items 60–80: update and optimistic concurrency (protocol §5.4, §6).
@Suite struct UpdateTests {
    func setup(_ backend: Backend = .embedded) throws -> (TableServerHarness, String) {
        let h = try TableServerHarness(backend: backend)
        let v0 = try h.insert(#"{"id":"a","text":"t","complete":false}"#)["version"]?.stringValue ?? ""
        return (h, v0)
    }

    @Test(arguments: Backend.allCases) func c60_patch(backend: Backend) throws {
        let (h, v0) = try setup(backend)
        let before = try h.send("GET", "/tables/todoitem/a").object
        let r = try h.send("PATCH", "/tables/todoitem/a", body: #"{"complete":true}"#)
        let o = r.object
        #expect(r.status == 200 && o["complete"] == true && o["text"] == "t" && o["version"]?.stringValue != v0)
        #expect(o["createdAt"] == before["createdAt"] && (o["updatedAt"]?.stringValue ?? "") > (before["updatedAt"]?.stringValue ?? "~"))
        #expect(r.headers["ETag"] == "\"\(o["version"]?.stringValue ?? "")\"")
        #expect(try h.send("GET", "/tables/todoitem/a").object["complete"] == true)
    }

    @Test(arguments: Backend.allCases) func c61_c62_c63_bodyID(backend: Backend) throws {
        let (h, _) = try setup(backend)
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":"x"}"#).status == 200)
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"id":"b","text":"x"}"#).status == 400)
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"id":"A","text":"x"}"#).status == 200)
    }

    @Test(arguments: Backend.allCases) func c64_currentIfMatchForms(backend: Backend) throws {
        let (h, v0) = try setup(backend)
        #expect(try h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"\(v0)\"")], body: #"{"text":"1"}"#).status == 200)
        let v1 = try h.send("GET", "/tables/todoitem/a").object["version"]?.stringValue ?? ""
        #expect(try h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", v1)], body: #"{"text":"2"}"#).status == 200)
        #expect(try h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "*")], body: #"{"text":"3"}"#).status == 200)
    }

    @Test(arguments: Backend.allCases) func c65_staleIfMatch(backend: Backend) throws {
        let (h, v0) = try setup(backend)
        try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":"other"}"#)
        let current = try h.send("GET", "/tables/todoitem/a").object
        let r = try h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"\(v0)\"")], body: #"{"text":"mine"}"#)
        #expect(r.status == 412 && r.object["text"] == "other" && r.object["version"] == current["version"])
        for name in ["createdAt", "updatedAt", "deleted"] { #expect(r.object[name] != nil) }
        #expect(r.headers["ETag"] == "\"\(current["version"]?.stringValue ?? "")\"")
        #expect(try h.send("GET", "/tables/todoitem/a").object["text"] == "other")
    }

    @Test(arguments: Backend.allCases) func c66_g1ConflictBodyHasAllSystemProperties(backend: Backend) throws {
        let (h, v0) = try setup(backend)
        try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":"other"}"#)
        let r = try h.send("PATCH", "/tables/todoitem/a", g2: false, headers: [("If-Match", "\"\(v0)\"")], body: #"{"text":"x"}"#)
        #expect(r.status == 412)
        for name in ["__createdAt", "__updatedAt", "__version", "__deleted"] { #expect(r.object[name] != nil, "\(name)") }
    }

    @Test(arguments: Backend.allCases) func c67_c68_c69_bodyVersion(backend: Backend) throws {
        let (h, v0) = try setup(backend)
        try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":"other"}"#)
        let stale = try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":"x","version":"\#(v0)"}"#)
        #expect(stale.status == 409 && stale.object["text"] == "other" && stale.headers["ETag"] != nil)
        let current = try h.send("GET", "/tables/todoitem/a").object["version"]?.stringValue ?? ""
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":"y","version":"\#(current)"}"#).status == 200)
        let now = try h.send("GET", "/tables/todoitem/a").object["version"]?.stringValue ?? ""
        #expect(try h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"\(now)\"")], body: #"{"text":"z","version":"\#(v0)"}"#).status == 200)
    }

    @Test(arguments: Backend.allCases) func c70_c71_weakAndMultipleTags(backend: Backend) throws {
        let (h, v0) = try setup(backend)
        #expect(try h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "W/\"\(v0)\"")], body: #"{"text":"x"}"#).status == 412)
        #expect(try h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"x\", \"y\"")], body: #"{"text":"x"}"#).status == 400)
    }

    @Test(arguments: Backend.allCases) func c72_c73_missingOrDeleted(backend: Backend) throws {
        let (h, _) = try setup(backend)
        #expect(try h.send("PATCH", "/tables/todoitem/nope", body: #"{"text":"x"}"#).status == 404)
        let deleted = try h.send("DELETE", "/tables/todoitem/a").object["version"]?.stringValue ?? ""
        #expect(try h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"\(deleted)\"")], body: #"{"text":"x"}"#).status == 404)
    }

    @Test(arguments: Backend.allCases) func c74_systemNamesInPatch(backend: Backend) throws {
        let (h, _) = try setup(backend)
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"updatedAt":"x"}"#).status == 400)
        #expect(try h.send("PATCH", "/tables/todoitem/a", g2: false, body: #"{"__version":"x"}"#).status == 400)
    }

    @Test(arguments: Backend.allCases) func c75_patchOnTheCollection(backend: Backend) throws {
        let (h, _) = try setup(backend)
        #expect(try h.send("PATCH", "/tables/todoitem", g2: false, body: #"{"id":"a","text":"z"}"#).status == 400)
        let r = try h.send("PATCH", "/tables/todoitem", body: #"{"id":"a","text":"z"}"#)
        #expect(r.status == 200 && r.object["text"] == "z")
        #expect(try h.send("PATCH", "/tables/todoitem", body: #"{"text":"z"}"#).status == 400)
    }

    @Test(arguments: Backend.allCases) func c76_emptyPatchWritesNothing(backend: Backend) throws {
        let (h, v0) = try setup(backend)
        let r = try h.send("PATCH", "/tables/todoitem/a", body: "{}")
        #expect(r.status == 200 && r.object["version"]?.stringValue == v0)
    }

    @Test(arguments: Backend.allCases) func c77_g1PatchWithIfMatchReturnsNewVersion(backend: Backend) throws {
        let (h, v0) = try setup(backend)
        let r = try h.send("PATCH", "/tables/todoitem/a", g2: false, headers: [("If-Match", "\"\(v0)\"")], body: #"{"text":"x"}"#)
        #expect(r.status == 200 && r.object["__version"] != nil && r.object["__version"]?.stringValue != v0)
    }

    @Test(arguments: Backend.allCases) func c78_patchNull(backend: Backend) throws {
        let (h, _) = try setup(backend)
        #expect(try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":null}"#).object["text"] == .null)
        #expect(try h.send("GET", "/tables/todoitem/a").object["text"] == .null)
    }

    @Test(arguments: Backend.allCases) func c79_tutorialRESTRequest(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend) { $0.appKey = "k" }
        let created = try h.send("POST", "/tables/todoitem", headers: [("X-ZUMO-APPLICATION", "k")], body: #"{"id":"D265929E","text":"Mobile Services is Cool!"}"#)
        let r = try h.send("PATCH", "/tables/todoitem/D265929E?__systemproperties=__version", g2: false,
                           headers: [("Content-Type", "application/json"), ("x-zumo-application", "k")],
                           body: #"{"id":"D265929E","text":"I love Azure!"}"#)
        #expect(r.status == 200 && r.object["__version"] != nil && r.object["__version"] != created.object["version"])
    }

    @Test(arguments: Backend.allCases) func c80_concurrentPatchesOneWinner(backend: Backend) throws {
        for round in 0..<5 {
            let (h, v0) = try setup(backend)
            let statuses = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                let status = (try? h.send("PATCH", "/tables/todoitem/a", headers: [("If-Match", "\"\(v0)\"")], body: #"{"text":"w\#(i)"}"#).status) ?? 0
                statuses.withLock { $0.append(status) }
            }
            let s = statuses.withLock { $0 }
            #expect(s.filter { $0 == 200 }.count == 1 && s.filter { $0 == 412 }.count == 7, "round \(round): \(s)")
        }
    }
}

/// Checklist items 81–94: delete and undelete (protocol §5.5, §7).
@Suite struct DeleteTests {
    @Test(arguments: Backend.allCases) func c81_c83_g2Delete(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let v0 = try h.insert(#"{"id":"a"}"#)["version"]
        let r = try h.send("DELETE", "/tables/todoitem/a")
        #expect(r.status == 200 && r.object["deleted"] == true && r.object["version"] != v0 && r.headers["ETag"] != nil)
        #expect(try h.send("GET", "/tables/todoitem/a").status == 404)
    }

    @Test(arguments: Backend.allCases) func c82_g1Delete(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"a"}"#)
        let r = try h.send("DELETE", "/tables/todoitem/a", g2: false)
        #expect(r.status == 204 && r.body.isEmpty)
    }

    @Test(arguments: Backend.allCases) func c84_deleteMissingOrDeleted(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        #expect(try h.send("DELETE", "/tables/todoitem/nope").status == 404)
        try h.insert(#"{"id":"a"}"#)
        try h.send("DELETE", "/tables/todoitem/a")
        #expect(try h.send("DELETE", "/tables/todoitem/a").status == 404)
    }

    @Test(arguments: Backend.allCases) func c85_c86_deleteIfMatch(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let v0 = try h.insert(#"{"id":"a"}"#)["version"]?.stringValue ?? ""
        try h.send("PATCH", "/tables/todoitem/a", body: #"{"text":"x"}"#)
        let stale = try h.send("DELETE", "/tables/todoitem/a", headers: [("If-Match", "\"\(v0)\"")])
        #expect(stale.status == 412 && stale.object["text"] == "x")
        #expect(try h.send("GET", "/tables/todoitem/a").status == 200)
        let v1 = try h.send("GET", "/tables/todoitem/a").object["version"]?.stringValue ?? ""
        #expect(try h.send("DELETE", "/tables/todoitem/a", headers: [("If-Match", v1)]).status == 200)
        let v2 = try h.insert(#"{"id":"b"}"#)["version"]?.stringValue ?? ""
        #expect(try h.send("DELETE", "/tables/todoitem/b", headers: [("If-Match", "\"\(v2)\"")]).status == 200)
    }

    @Test(arguments: Backend.allCases) func c87_hardDeleteTable(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend) { $0.tables = ["todoitem"] }
        try h.store.createTable("hard", softDelete: false, idType: .string, columns: [:])
        try h.insert(#"{"id":"a"}"#, table: "hard")
        #expect(try h.send("DELETE", "/tables/hard/a").status == 200)
        #expect(try h.send("GET", "/tables/hard/a?__includeDeleted=true").status == 404)
        #expect(try h.send("GET", "/tables/hard?__includeDeleted=true").array.isEmpty)
        #expect(try h.send("POST", "/tables/hard", body: #"{"id":"a"}"#).status == 201)
        #expect(try h.send("POST", "/tables/hard/a").status == 400, "c93: no undelete on a hard-delete table")
    }

    @Test(arguments: Backend.allCases) func c88_c89_undelete(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"a"}"#)
        let deleted = try h.send("DELETE", "/tables/todoitem/a").object["version"]
        let r = try h.send("POST", "/tables/todoitem/a")
        #expect(r.status == 201 && r.object["deleted"] == false && r.object["version"] != deleted)
        #expect(try h.send("GET", "/tables/todoitem/a").status == 200)
        try h.send("DELETE", "/tables/todoitem/a")
        #expect(try h.send("POST", "/tables/todoitem/a", g2: false).status == 200)
    }

    @Test(arguments: Backend.allCases) func c90_c91_c92_c94_undeleteRules(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let v0 = try h.insert(#"{"id":"a"}"#)["version"]?.stringValue ?? ""
        try h.send("DELETE", "/tables/todoitem/a")
        #expect(try h.send("POST", "/tables/todoitem/a", headers: [("If-Match", "\"\(v0)\"")]).status == 412)
        #expect(try h.send("POST", "/tables/todoitem/a", body: #"{"text":"x"}"#).status == 400)
        #expect(try h.send("POST", "/tables/todoitem/nope").status == 404)
        let live = try h.insert(#"{"id":"b"}"#)["version"]
        let r = try h.send("POST", "/tables/todoitem/b")
        #expect(r.status == 201 && r.object["version"] == live)
    }
}
