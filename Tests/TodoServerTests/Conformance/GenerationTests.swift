import Testing
import TableProtocol
import TodoModel

/// Checklist items 1–13: choosing the generation of a request (protocol §2.2).
@Suite struct GenerationTests {
    @Test func c01_g2QueryReturnsAnArray() throws {
        let h = try TableServerHarness()
        try h.insert(#"{"id":"a","text":"t"}"#)
        let r = try h.send("GET", "/tables/todoitem")
        #expect(r.status == 200 && r.array.count == 1)
    }

    @Test func c02_lowerCaseHeaderName() throws {
        let h = try TableServerHarness()
        try h.insert(#"{"id":"a","text":"t"}"#)
        let r = try h.send("GET", "/tables/todoitem", g2: false, headers: [("zumo-api-version", "2.0.0")])
        #expect(r.status == 200 && r.array.first?["version"] != nil)
    }

    @Test func c03_c04_queryParameterSelectsG2() throws {
        let h = try TableServerHarness()
        try h.insert(#"{"id":"a","text":"t"}"#)
        for target in ["/tables/todoitem?ZUMO-API-VERSION=2.0.0", "/tables/todoitem?zumo-api-version=2.0.1"] {
            let r = try h.send("GET", target, g2: false)
            #expect(r.status == 200 && r.array.first?["version"] != nil, "\(target)")
        }
    }

    @Test func c05_queryWinsOverHeader() throws {
        let h = try TableServerHarness()
        #expect(try h.send("GET", "/tables/todoitem?ZUMO-API-VERSION=1.0.0").status == 400)
    }

    @Test(arguments: ["1.0.0", "2.0", "3.0.0", ""])
    func c06_c07_c08_unsupportedVersions(version: String) throws {
        let h = try TableServerHarness()
        let r = try h.send("GET", "/tables/todoitem", g2: false, headers: [("ZUMO-API-VERSION", version)])
        #expect(r.status == 400 && r.object["error"]?.stringValue != nil)
    }

    @Test func c09_g1RowsCarryNoSystemProperties() throws {
        let h = try TableServerHarness()
        try h.insert(#"{"id":"a","text":"t"}"#)
        let row = try h.send("GET", "/tables/todoitem", g2: false).array.first?.objectValue ?? [:]
        for name in ["__version", "version", "createdAt", "__createdAt", "__updatedAt", "__deleted"] { #expect(row[name] == nil) }
        #expect(row["text"] == "t")
    }

    @Test func c10_g1RequestedSystemProperties() throws {
        let h = try TableServerHarness()
        try h.insert(#"{"id":"a","text":"t"}"#)
        let r = try h.send("GET", "/tables/todoitem?__systemproperties=__Version,%20createdAt", g2: false)
        let keys = Set((r.array.first?.objectValue ?? [:]).keys)
        #expect(keys.intersection(["__version", "__createdAt", "__updatedAt", "__deleted", "version", "createdAt"]) == ["__version", "__createdAt"])
    }

    @Test func c11_unknownSystemPropertyEntry() throws {
        let h = try TableServerHarness()
        #expect(try h.send("GET", "/tables/todoitem?__systemproperties=bogus", g2: false).status == 400)
    }

    @Test func c12_unknownDollarAndDoubleUnderscoreParameters() throws {
        let h = try TableServerHarness()
        #expect(try h.send("GET", "/tables/todoitem?$foo=1", g2: false).status == 400)
        #expect(try h.send("GET", "/tables/todoitem?__foo=1", g2: false).status == 400)
        #expect(try h.send("GET", "/tables/todoitem?$foo=1").status == 200)
        #expect(try h.send("GET", "/tables/todoitem?__foo=1").status == 200)
        #expect(try h.send("GET", "/tables/todoitem?custom=1", g2: false).status == 200)
        #expect(try h.send("GET", "/tables/todoitem?custom=1").status == 200)
    }

    @Test func c13_g1Disabled() throws {
        let h = try TableServerHarness { $0.servesMobileServices = false }
        let r = try h.send("GET", "/tables/todoitem", g2: false)
        #expect(r.status == 400 && r.object["error"]?.stringValue?.contains("2.0.0") == true)
    }
}

/// Checklist items 14–24: headers, routing, limits.
@Suite struct RoutingTests {
    @Test func c14_optionsNeedsNothing() throws {
        let h = try TableServerHarness { $0.appKey = "k" }
        let r = try h.send("OPTIONS", "/tables/todoitem", g2: false)
        #expect(r.status == 200)
        let allow = r.headers["Allow"] ?? ""
        for m in ["GET", "POST", "PATCH", "DELETE"] { #expect(allow.contains(m)) }
    }

    @Test func c15_everyResponseCarriesServerHeaders() throws {
        let h = try TableServerHarness()
        for r in [try h.send("GET", "/tables/todoitem"), try h.send("GET", "/nowhere"), try h.send("GET", "/tables/todoitem/x")] {
            #expect(r.headers["x-zumo-server-version"] != nil && r.headers["Cache-Control"] == "no-cache", "\(r)")
        }
    }

    @Test func c16_unknownTable() throws {
        let h = try TableServerHarness()
        let r = try h.send("GET", "/tables/no_such_table")
        #expect(r.status == 404 && r.object["error"] != nil)
    }

    @Test func c17_tableNameIgnoresCase() throws {
        let h = try TableServerHarness()
        try h.insert(#"{"id":"a","text":"t"}"#)
        #expect(try h.send("GET", "/tables/TodoItem").array.ids == ["a"])
    }

    @Test func c18_otherPaths() throws {
        let h = try TableServerHarness()
        #expect(try h.send("GET", "/api/anything").status == 404)
    }

    @Test func c19_c20_methodNotAllowed() throws {
        let h = try TableServerHarness()
        let put = try h.send("PUT", "/tables/todoitem/x", body: "{}")
        #expect(put.status == 405 && put.headers["Allow"] != nil)
        let delete = try h.send("DELETE", "/tables/todoitem")
        #expect(delete.status == 405 && delete.headers["Allow"] != nil)
    }

    @Test func c21_bodyLimit() throws {
        let h = try TableServerHarness()
        let big = try h.send("POST", "/tables/todoitem", body: String(repeating: "x", count: 1_048_577))
        #expect(big.status == 413 && big.object["error"] != nil)
        let text = String(repeating: "y", count: 1_000_000 - 30)
        let ok = try h.send("POST", "/tables/todoitem", body: #"{"id":"big","text":"\#(text)"}"#)
        #expect(ok.status == 201)
    }

    @Test func c22_targetLimit() throws {
        let h = try TableServerHarness()
        #expect(try h.send("GET", "/tables/todoitem?x=" + String(repeating: "a", count: 20_000)).status == 414)
    }

    @Test func c24_garbageThenStillServing() throws {
        let h = try TableServerHarness()
        let client = try RawHTTPClient(port: h.port)
        try client.send(Array("\u{01}\u{02}garbage\r\n\r\n".utf8))
        #expect(try client.readResponse().status == 400)
        client.close()
        #expect(try h.send("GET", "/tables/todoitem").status == 200)
    }
}

/// Checklist items 25–29: the app key (protocol §3.8).
@Suite struct AppKeyTests {
    @Test func c25_missingKey() throws {
        let h = try TableServerHarness { $0.appKey = "k" }
        let r = try h.send("GET", "/tables/todoitem")
        #expect(r.status == 401 && r.object["error"] != nil)
    }

    @Test func c26_wrongKeyG1Body() throws {
        let h = try TableServerHarness { $0.appKey = "k" }
        let r = try h.send("GET", "/tables/todoitem", g2: false, headers: [("X-ZUMO-APPLICATION", "wrong")])
        #expect(r.status == 401 && r.object["code"] == 401 && r.object["error"]?.stringValue?.hasPrefix("Error: ") == true)
    }

    @Test func c27_lowerCaseHeaderBothGenerations() throws {
        let h = try TableServerHarness { $0.appKey = "k" }
        #expect(try h.send("GET", "/tables/todoitem", g2: false, headers: [("x-zumo-application", "k")]).status == 200)
        #expect(try h.send("GET", "/tables/todoitem", headers: [("x-zumo-application", "k")]).status == 200)
    }

    @Test func c28_optionsWithoutKey() throws {
        let h = try TableServerHarness { $0.appKey = "k" }
        #expect(try h.send("OPTIONS", "/tables/todoitem").status == 200)
    }

    @Test func c29_noKeyConfigured() throws {
        let h = try TableServerHarness()
        #expect(try h.send("GET", "/tables/todoitem", headers: [("X-ZUMO-APPLICATION", "anything")]).status == 200)
    }
}
