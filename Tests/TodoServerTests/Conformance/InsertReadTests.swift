import Testing
import TableProtocol
import TodoModel

func isWireDate(_ v: JSONValue?) -> Bool {
    guard let s = v?.stringValue, s.utf8.count == 24 else { return false }
    let c = Array(s)
    return c[4] == "-" && c[10] == "T" && c[19] == "." && c[23] == "Z" && WireInstant(wireText: s) != nil
}

/// Checklist items 30–51: insert (protocol §5.3).
@Suite struct InsertTests {
    @Test(arguments: Backend.allCases) func c30_c31_g2InsertBodyAndHeaders(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let r = try h.send("POST", "/tables/todoitem", body: #"{"id":"a","text":"t","complete":false}"#)
        #expect(r.status == 201)
        let o = r.object
        #expect(o["id"] == "a" && o["text"] == "t" && o["complete"] == false && o["deleted"] == false)
        #expect(isWireDate(o["createdAt"]) && isWireDate(o["updatedAt"]))
        let version = o["version"]?.stringValue ?? ""
        #expect(VersionText.decode(version) != nil)
        #expect(r.headers["ETag"] == "\"\(version)\"")
        #expect(r.headers["Location"]?.hasSuffix("/tables/todoitem/a") == true)
    }

    @Test(arguments: Backend.allCases) func c32_g1AllSystemPropertiesWhenAsked(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let r = try h.send("POST", "/tables/todoitem?__systemproperties=*", g2: false, body: #"{"id":"a","text":"t"}"#)
        #expect(r.status == 201)
        for name in ["__createdAt", "__updatedAt", "__version", "__deleted"] { #expect(r.object[name] != nil, "\(name)") }
        for name in ["createdAt", "updatedAt", "version", "deleted"] { #expect(r.object[name] == nil, "\(name)") }
    }

    @Test(arguments: Backend.allCases) func c33_g1NoSystemPropertiesByDefault(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let r = try h.send("POST", "/tables/todoitem", g2: false, body: #"{"id":"a","text":"t"}"#)
        #expect(r.status == 201 && r.object["__version"] == nil && r.object["__createdAt"] == nil)
        #expect(r.headers["ETag"] == nil && r.headers["Location"] != nil)
    }

    @Test(arguments: Backend.allCases) func c34_c35_generatedIDs(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        for body in [#"{"text":"t"}"#, #"{"id":null,"text":"t"}"#, #"{"id":"","text":"t"}"#] {
            let r = try h.send("POST", "/tables/todoitem", body: body)
            let id = r.object["id"]?.stringValue ?? ""
            #expect(r.status == 201 && id.count == 36 && id == id.lowercased(), "\(body)")
            #expect(try h.send("GET", "/tables/todoitem/\(id)").status == 200)
        }
    }

    @Test(arguments: Backend.allCases) func c36_duplicateInsert(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let first = try h.insert(#"{"id":"a","text":"old"}"#)
        let r = try h.send("POST", "/tables/todoitem", body: #"{"id":"a","text":"new"}"#)
        #expect(r.status == 409 && r.object["text"] == "old" && r.object["version"] == first["version"])
        #expect(r.headers["ETag"] != nil)
        #expect(try h.send("GET", "/tables/todoitem/a").object["text"] == "old")
    }

    @Test(arguments: Backend.allCases) func c37_duplicateInOtherCase(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"a","text":"t"}"#)
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"A","text":"t"}"#).status == 409)
    }

    @Test(arguments: Backend.allCases) func c38_duplicateOfDeleted(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"a","text":"t"}"#)
        try h.send("DELETE", "/tables/todoitem/a")
        let r = try h.send("POST", "/tables/todoitem", body: #"{"id":"a","text":"t"}"#)
        #expect(r.status == 409 && r.object["deleted"] == true)
    }

    @Test(arguments: [#"{"createdAt":"x"}"#, #"{"updatedAt":"x"}"#, #"{"CReatedAT":"x"}"#, #"{"deleted":false}"#,
                      #"{"__x":1}"#, #"{"ms_x":1}"#, #"{"MS_x":1}"#, #"{"ID":"a"}"#, #"{"id":5}"#, "[1]", #""x""#, "{bad", "",
                      #"{"text":{"a":1}}"#, #"{"tags":[1]}"#, #"{"complete":"yes"}"#, #"{"a":1,"a":2}"#])
    func c39_c41_c42_c43_c45_c46_c47_c48_badInsertBodies(body: String) throws {
        let h = try TableServerHarness()
        let r = try h.send("POST", "/tables/todoitem", body: body)
        #expect(r.status == 400 && r.object["error"]?.stringValue?.isEmpty == false, "\(body) -> \(r)")
    }

    @Test(arguments: Backend.allCases) func c40_g2BodyVersionIgnoredOnInsert(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"first"}"#)
        let r = try h.send("POST", "/tables/todoitem", body: #"{"id":"a","version":"AAAAAAAAB9E=","text":"t"}"#)
        #expect(r.status == 201 && r.object["version"] != "AAAAAAAAB9E=" && r.object["version"] != nil)
    }

    @Test(arguments: Backend.allCases) func c41_g1SystemNamesRejected(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        for body in [#"{"__version":"x"}"#, #"{"__anything":1}"#, #"{"version":"x"}"#] {
            #expect(try h.send("POST", "/tables/todoitem", g2: false, body: body).status == 400, "\(body)")
        }
    }

    @Test(arguments: ["a/b", "a?b", "a+b", "a\\\\b", "a\\\"b", "a`b", "a\\u0001b", ".", "..", "   ", String(repeating: "x", count: 256)])
    func c44_invalidIDs(id: String) throws {
        let h = try TableServerHarness()
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"\#(id)","text":"t"}"#).status == 400, "\(id)")
    }

    @Test(arguments: Backend.allCases) func c44_longestID(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        #expect(try h.send("POST", "/tables/todoitem", body: #"{"id":"\#(String(repeating: "x", count: 255))"}"#).status == 201)
    }

    @Test(arguments: Backend.allCases) func c49_contentTypeDoesNotMatter(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let r1 = try h.send("POST", "/tables/todoitem", body: #"{"id":"a"}"#)
        let r2 = try h.send("POST", "/tables/todoitem", headers: [("Content-Type", "application/json; charset=utf-8")], body: #"{"id":"b"}"#)
        let r3 = try h.send("POST", "/tables/todoitem", headers: [("content-type", "application/json")], body: #"{"id":"c"}"#)
        #expect([r1.status, r2.status, r3.status] == [201, 201, 201])
    }

    @Test(arguments: Backend.allCases) func c50_c51_nullAndEveryColumnListed(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let r = try h.send("POST", "/tables/todoitem", body: #"{"id":"n1","note":null}"#)
        #expect(r.status == 201 && r.object["note"] == .null)
        try h.insert(#"{"id":"n2","note":"x","extra":"e"}"#)
        let other = try h.send("GET", "/tables/todoitem/n1").object
        #expect(other["extra"] == .null && other.keys.contains("extra"))
    }
}

/// Checklist items 52–59: read by id (protocol §5.2).
@Suite struct ReadTests {
    @Test(arguments: Backend.allCases) func c52_c53_readByIDInAnyCase(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let item = try h.insert(#"{"id":"a","text":"t"}"#)
        let r = try h.send("GET", "/tables/todoitem/A")
        #expect(r.status == 200 && r.object["id"] == "a" && r.headers["ETag"] == "\"\(item["version"]?.stringValue ?? "")\"")
    }

    @Test(arguments: Backend.allCases) func c54_missing(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let r = try h.send("GET", "/tables/todoitem/nope")
        #expect(r.status == 404 && r.object["error"] != nil)
    }

    @Test(arguments: Backend.allCases) func c55_deletedNeedsIncludeDeleted(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"a"}"#)
        try h.send("DELETE", "/tables/todoitem/a")
        #expect(try h.send("GET", "/tables/todoitem/a").status == 404)
        let r = try h.send("GET", "/tables/todoitem/a?__includeDeleted=true")
        #expect(r.status == 200 && r.object["deleted"] == true)
    }

    @Test(arguments: Backend.allCases) func c56_g1NotModified(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        let v = try h.insert(#"{"id":"a"}"#)["version"]?.stringValue ?? ""
        let g1 = try h.send("GET", "/tables/todoitem/a", g2: false, headers: [("If-None-Match", "\"\(v)\"")])
        #expect(g1.status == 304 && g1.body.isEmpty)
        #expect(try h.send("GET", "/tables/todoitem/a", headers: [("If-None-Match", "\"\(v)\"")]).status == 200)
    }

    @Test(arguments: Backend.allCases) func c57_pagingOptionsOnReadByID(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"a"}"#)
        #expect(try h.send("GET", "/tables/todoitem/a?$top=1", g2: false).status == 400)
        #expect(try h.send("GET", "/tables/todoitem/a?$top=1").status == 200)
    }

    @Test(arguments: Backend.allCases) func c58_selectOnReadByID(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        try h.insert(#"{"id":"a","text":"t"}"#)
        let r = try h.send("GET", "/tables/todoitem/a?$select=text")
        #expect(r.status == 200 && r.object == ["text": "t"])
    }

    @Test(arguments: Backend.allCases) func c59_encodedSlash(backend: Backend) throws {
        let h = try TableServerHarness(backend: backend)
        #expect(try h.send("GET", "/tables/todoitem/a%2Fb").status == 400)
    }
}
