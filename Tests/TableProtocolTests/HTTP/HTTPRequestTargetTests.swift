import Testing
import TodoBasics
@testable import TableProtocol

@Suite("HTTP request target and percent-encoding")
struct HTTPRequestTargetTests {
    private func parse(_ target: String, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPRequestTarget? {
        do {
            return try HTTPRequestTarget(parsing: target)
        } catch {
            Issue.record("\(target): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    private func failure(_ target: String) -> String? {
        do {
            _ = try HTTPRequestTarget(parsing: target)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func pathSegmentsAndQuery() throws {
        let target = try #require(parse("/tables/todoitem/abc?$top=5&$filter=complete%20eq%20false"))
        #expect(target.path == "/tables/todoitem/abc")
        #expect(target.segments == ["tables", "todoitem", "abc"])
        #expect(target.rawQuery == "$top=5&$filter=complete%20eq%20false")
        #expect(target.queryItems == [
            HTTPQueryItem(name: "$top", value: "5"),
            HTTPQueryItem(name: "$filter", value: "complete eq false"),
        ])
        #expect(target.queryValues(for: "$top") == ["5"])
        #expect(target.authority == nil)
    }

    @Test func encodedSlashStaysInsideItsSegment() throws {
        let target = try #require(parse("/tables/todoitem/a%2Fb"))
        #expect(target.segments == ["tables", "todoitem", "a/b"])
        #expect(try #require(parse("/tables/todoitem/a%2fb")).segments.last == "a/b")
    }

    @Test func plusIsLiteralInPathButSpaceInQuery() throws {
        let target = try #require(parse("/tables/t/a+b%2B?x+y=1+2%2B3"))
        #expect(target.segments.last == "a+b+")
        #expect(target.queryItems == [HTTPQueryItem(name: "x y", value: "1 2+3")])
    }

    @Test func utf8IsDecodedInPathAndQuery() throws {
        let target = try #require(parse("/tables/t/%C3%A9t%C3%A9%F0%9F%98%80?n%C3%A9=%E2%82%AC"))
        #expect(target.segments.last == "été😀")
        #expect(target.queryItems == [HTTPQueryItem(name: "né", value: "€")])
    }

    @Test func trailingSlashIsIgnoredOnce() throws {
        #expect(try #require(parse("/tables/x/")).segments == ["tables", "x"])
        #expect(try #require(parse("/tables/x")).segments == ["tables", "x"])
        #expect(try #require(parse("/tables/x//")).segments == ["tables", "x", ""])
        #expect(try #require(parse("/tables//x")).segments == ["tables", "", "x"])
        #expect(try #require(parse("/")).segments == [])
        #expect(try #require(parse("/?a=1")).segments == [])
        #expect(try #require(parse("/tables/x/")).path == "/tables/x/")
    }

    @Test func queryPairsNamesAndEmptyParts() throws {
        let target = try #require(parse("/t?a=1&&b&c=&=d&e=x=y&a=2"))
        #expect(target.queryItems == [
            HTTPQueryItem(name: "a", value: "1"), HTTPQueryItem(name: "b", value: ""),
            HTTPQueryItem(name: "c", value: ""), HTTPQueryItem(name: "", value: "d"),
            HTTPQueryItem(name: "e", value: "x=y"), HTTPQueryItem(name: "a", value: "2"),
        ])
        #expect(target.queryValues(for: "a") == ["1", "2"])
        #expect(try #require(parse("/t?")).rawQuery == "")
        #expect(try #require(parse("/t")).rawQuery == nil)
    }

    @Test func absoluteFormDropsSchemeAndAuthority() throws {
        let target = try #require(parse("http://127.0.0.1:8080/tables/t?%24skip=50"))
        #expect(target.authority == "127.0.0.1:8080")
        #expect(target.path == "/tables/t")
        #expect(target.segments == ["tables", "t"])
        #expect(target.queryItems == [HTTPQueryItem(name: "$skip", value: "50")])
        #expect(try #require(parse("HTTPS://example.com")).segments == [])
        #expect(try #require(parse("http://example.com?a=b")).queryItems == [HTTPQueryItem(name: "a", value: "b")])
    }

    @Test func asteriskFormIsAccepted() throws {
        let target = try #require(parse("*"))
        #expect(target.path == "*")
        #expect(target.segments.isEmpty)
    }

    @Test(arguments: [
        ("/tables/t/%G1", "invalid percent-encoding '%G1' in path segment 3"),
        ("/tables/t/%4", "invalid percent-encoding '%4' in path segment 3"),
        ("/tables/%", "invalid percent-encoding '%' in path segment 2"),
        ("/tables/t/%C3", "UTF-8 in path segment 3"),
        ("/tables/t/%FF%FE", "UTF-8"),
        ("/tables/t/%C0%AF", "UTF-8"),
        ("/t?a=%zz", "invalid percent-encoding '%zz' in query parameter 'a'"),
        ("/t?bad%E9=1", "UTF-8 in query parameter"),
        ("/t?a=%ED%A0%80", "UTF-8"),
        ("tables/t", "must start with '/'"),
        ("", "must start with '/'"),
        ("http:///x", "no host"),
    ])
    func invalidTargetsAreRejected(target: String, expected: String) {
        let message = failure(target)
        #expect(message?.contains(expected) == true, "\(target): \(message ?? "accepted")")
    }

    @Test func encodeKeepsOnlyUnreservedBytes() {
        #expect(PercentEncoding.encode("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.encode("$filter") == "%24filter")
        #expect(PercentEncoding.encode("complete eq false") == "complete%20eq%20false")
        #expect(PercentEncoding.encode("a/b;c+d&e=f?#%") == "a%2Fb%3Bc%2Bd%26e%3Df%3F%23%25")
        #expect(PercentEncoding.encode("é€😀") == "%C3%A9%E2%82%AC%F0%9F%98%80")
        #expect(PercentEncoding.encode("") == "")
    }

    @Test func encodeThenDecodeRoundTripsEveryByteValue() throws {
        var generator = SplitMix64(seed: 3)
        for _ in 0..<200 {
            let scalars = (0..<Int.random(in: 0...20, using: &generator)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x1_0000, using: &generator))
            }
            let original = String(String.UnicodeScalarView(scalars))
            let encoded = PercentEncoding.encode(original)
            #expect(encoded.utf8.allSatisfy { PercentEncoding.isUnreserved($0) || $0 == 0x25 || ($0 >= 0x41 && $0 <= 0x46) })
            #expect(try PercentEncoding.decode(encoded, plusAsSpace: false) == original)
            #expect(try PercentEncoding.decode(encoded, plusAsSpace: true) == original)
            let target = try HTTPRequestTarget(parsing: "/t/\(encoded)?\(encoded)=\(encoded)")
            // An empty last segment is the ignored trailing slash.
            #expect(target.segments == (original.isEmpty ? ["t"] : ["t", original]))
            if !original.isEmpty { #expect(target.queryItems == [HTTPQueryItem(name: original, value: original)]) }
        }
    }
}

/// The byte-wise reading of ASCII origin-form targets must agree with the general one.
@Suite("HTTP request target: the ASCII fast path")
struct HTTPRequestTargetFastPathTests {
    private func outcome(_ parse: () throws(HTTPTargetError) -> HTTPRequestTarget) -> Result<HTTPRequestTarget, HTTPTargetError> {
        do throws(HTTPTargetError) { return .success(try parse()) } catch { return .failure(error) }
    }

    @Test func agreesWithTheGeneralReading() {
        let targets = ["/", "//", "///", "/a", "/a/", "/a//", "//a", "/tables/todoitem", "/tables/todoitem/",
                       "/tables/todoitem/00000007-0000-4000-8000-000000000001", "/tables/x?", "/tables/x?a=1&&b=2",
                       "/tables/x/?$filter=text%20eq%20'a'&$top=3", "/?", "/?a", "/a%2Fb/c", "/a%2", "/%", "/a/%G1/b",
                       "/a/b%ZZ?x=1", "/a/%C3%A9", "/a/%C3", "/a/%FF", "/a+b/c?d+e=f%2Bg", "/tables/x?%zz=1",
                       "/tables/x??a=b", "/a?b/c", "/a#frag", "/a/./b/../c", "/\u{7f}"]
        for target in targets {
            #expect(HTTPRequestTarget.isASCIIOriginForm(target))
            let fast = outcome { () throws(HTTPTargetError) in try HTTPRequestTarget(asciiOriginForm: target) }
            let general = outcome { () throws(HTTPTargetError) in try HTTPRequestTarget(anyForm: target) }
            #expect(fast == general, "\(target)")
            let parsed = outcome { () throws(HTTPTargetError) in try HTTPRequestTarget(parsing: target) }
            #expect(parsed == general, "\(target)")
        }
        for other in ["*", "http://h/a", "HTTP://h:1/a?b", "a/b", "", "/é", "/a/\u{301}", "h"] {
            #expect(!HTTPRequestTarget.isASCIIOriginForm(other), "\(other)")
        }
    }
}
