import Testing
@testable import TableProtocol

@Suite("HTTP headers")
struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsOrder() {
        let headers: HTTPHeaders = ["Content-Type": "application/json", "X-A": "1", "x-a": "2"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers["X-A"] == "1")
        #expect(headers.values(for: "x-A") == ["1", "2"])
        #expect(headers["missing"] == nil)
        #expect(headers.values(for: "missing") == [])
        #expect(headers.map(\.name) == ["Content-Type", "X-A", "x-a"])
        #expect(headers.contains(name: "x-a"))
        #expect(!headers.contains(name: "x-"))
    }

    @Test func setReplacesAllKeepingFirstPosition() {
        var headers = HTTPHeaders([("A", "1"), ("B", "2"), ("a", "3"), ("C", "4")])
        headers.set(name: "a", value: "new")
        #expect(headers.fields == [HTTPHeader(name: "A", value: "new"), HTTPHeader(name: "B", value: "2"), HTTPHeader(name: "C", value: "4")])
        headers.set(name: "D", value: "5")
        #expect(headers.last == HTTPHeader(name: "D", value: "5"))
        headers["b"] = "subscript"
        #expect(headers["B"] == "subscript")
        headers["b"] = nil
        #expect(!headers.contains(name: "B"))
        #expect(headers.count == 3)
    }

    @Test func addAndRemove() {
        var headers = HTTPHeaders()
        headers.add(name: "Vary", value: "Origin")
        headers.add(name: "vary", value: "Accept")
        #expect(headers.values(for: "VARY") == ["Origin", "Accept"])
        headers.remove(name: "VARY")
        #expect(headers.isEmpty)
    }

    @Test func tokensInCommaLists() {
        let headers: HTTPHeaders = ["Connection": "Upgrade,  Keep-Alive ", "connection": "x"]
        #expect(headers.containsToken("keep-alive", forName: "CONNECTION"))
        #expect(headers.containsToken("upgrade", forName: "connection"))
        #expect(headers.containsToken("X", forName: "connection"))
        #expect(!headers.containsToken("close", forName: "connection"))
        #expect(!headers.containsToken("keep", forName: "connection"))
    }

    @Test func nonASCIINamesDoNotMatchLoosely() {
        let headers: HTTPHeaders = ["Ä": "1"]
        #expect(headers["ä"] == nil)
        #expect(headers["Ä"] == "1")
    }
}
