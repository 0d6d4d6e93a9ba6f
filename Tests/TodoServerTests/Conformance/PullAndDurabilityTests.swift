#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Testing
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// Checklist items 129–133: the pull shapes of the SDKs and of `todo`.
@Suite struct PullShapeOverHTTPTests {
    @Test(arguments: Backend.allCases) func c129_sdkSkipPull(backend: Backend) throws {
        let h = try seeded(backend)
        try h.send("DELETE", "/tables/todoitem/r2")
        var seen: [String] = []
        var skip = 0
        var last = ""
        while true {
            let page = try h.send("GET", "/tables/todoitem?$filter=(updatedAt%20ge%20datetimeoffset'1970-01-01T00:00:00.000Z')&$orderby=updatedAt&$top=2&__includeDeleted=true&$skip=\(skip)").array
            if page.isEmpty { break }
            for row in page {
                let u = row["updatedAt"]?.stringValue ?? ""
                #expect(u >= last)
                last = u
            }
            seen += page.ids
            skip += 2
        }
        #expect(seen.sorted() == ["r1", "r2", "r3", "r4", "r5"])
    }

    @Test(arguments: Backend.allCases) func c130_c132_cursorPull(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        for i in 1...7 { try h.insert(#"{"id":"c\#(i)"}"#) }
        var cursor: (String, String)? = nil
        var seen: [String] = []
        var pages = 0
        while pages < 20 {
            var filter = ""
            if let (t, id) = cursor {
                filter = "$filter=" + PercentEncoding.encode(PullFilterText.cursorCondition(updatedAtName: "updatedAt", updatedAtText: t, id: id)) + "&"
            }
            let page = try h.send("GET", "/tables/todoitem?\(filter)$orderby=updatedAt%20asc,id%20asc&$top=2&__includeDeleted=true").array
            pages += 1
            if page.isEmpty { break }
            seen += page.ids
            if pages == 2 { try h.insert(#"{"id":"late"}"#) }  // c132: a write between pages shows up later
            cursor = (page.last?["updatedAt"]?.stringValue ?? "", page.last?["id"]?.stringValue ?? "")
        }
        #expect(seen == ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "late"])
    }

    @Test(arguments: Backend.allCases) func c131_g1PullCarriesSystemProperties(backend: Backend) throws {
        let h = try seeded(backend)
        let rows = try h.send("GET", "/tables/todoitem?$orderby=__updatedAt%20asc,id%20asc&$top=50&__includeDeleted=true&__systemproperties=__createdAt,__updatedAt,__version,__deleted", g2: false).array
        #expect(rows.count == 5 && rows.allSatisfy { $0["__updatedAt"] != nil && $0["__version"] != nil && $0["__deleted"] != nil })
    }

    @Test(arguments: Backend.allCases) func c133_updatedAtStrictlyIncreases(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        var last = ""
        for i in 0..<50 {
            let u = try h.insert(#"{"id":"m\#(i)"}"#)["updatedAt"]?.stringValue ?? ""
            #expect(u > last)
            last = u
        }
    }
}

/// Checklist items 134–137: durability and concurrency.
@Suite struct DurabilityTests {
    @Test func c134_c136_restartKeepsItemsAndVersionsNeverRepeat() throws {
        let dir = TempDirectory("todo-server-restart")
        defer { dir.remove() }
        var versions = Set<UInt64>()
        var v = ""
        do {
            let storage = try TableStorage(directory: dir.sub("data"))
            let service = try TableService(configuration: ServiceConfiguration(), storage: storage)
            let r = service.respond(to: HTTPRequest(method: "POST", target: "/tables/todoitem", headers: ["ZUMO-API-VERSION": "2.0.0"],
                                                    body: Array(#"{"id":"a","text":"t"}"#.utf8)))
            v = (try? JSONValue.parse(r.body))?["version"]?.stringValue ?? ""
            versions.insert(VersionText.decode(v) ?? 0)
        }
        let storage = try TableStorage(directory: dir.sub("data"))
        let service = try TableService(configuration: ServiceConfiguration(), storage: storage)
        let read = service.respond(to: HTTPRequest(method: "GET", target: "/tables/todoitem/a", headers: ["ZUMO-API-VERSION": "2.0.0"]))
        #expect(read.status == 200 && (try? JSONValue.parse(read.body))?["version"]?.stringValue == v)
        let write = service.respond(to: HTTPRequest(method: "PATCH", target: "/tables/todoitem/a", headers: ["ZUMO-API-VERSION": "2.0.0"],
                                                    body: Array(#"{"text":"u"}"#.utf8)))
        let v2 = (try? JSONValue.parse(write.body))?["version"]?.stringValue ?? ""
        #expect(write.status == 200 && v2 != v && !versions.contains(VersionText.decode(v2) ?? 0))
    }

    @Test(arguments: Backend.allCases) func c137_concurrentInsertsOfOneID(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let s = (try? h.send("POST", "/tables/todoitem", body: #"{"id":"same","text":"t"}"#).status) ?? 0
            statuses.withLock { $0.append(s) }
        }
        let s = statuses.withLock { $0 }
        #expect(s.filter { $0 == 201 }.count == 1 && s.filter { $0 == 409 }.count == 7, "\(s)")
    }
}
