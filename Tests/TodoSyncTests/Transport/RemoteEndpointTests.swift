import Testing
import TodoSync

struct RemoteEndpointTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080", RemoteEndpoint.Scheme.http, "127.0.0.1", 8080, "", "http://127.0.0.1:8080", "127.0.0.1:8080"),
        ("http://localhost", .http, "localhost", 80, "", "http://localhost", "localhost"),
        ("https://Example.COM/api/", .https, "example.com", 443, "/api", "https://example.com/api", "example.com"),
        ("HTTPS://example.com:443/a/b//", .https, "example.com", 443, "/a/b", "https://example.com/a/b", "example.com"),
        ("http://example.com:443", .http, "example.com", 443, "", "http://example.com:443", "example.com:443"),
        ("https://my-app.azurewebsites.net/", .https, "my-app.azurewebsites.net", 443, "", "https://my-app.azurewebsites.net", "my-app.azurewebsites.net"),
        ("http://[::1]:9000/x%20y", .http, "::1", 9000, "/x%20y", "http://[::1]:9000/x%20y", "[::1]:9000"),
        ("http://[::1]", .http, "::1", 80, "", "http://[::1]", "[::1]"),
    ])
    func parses(_ text: String, _ scheme: RemoteEndpoint.Scheme, _ host: String, _ port: Int, _ basePath: String,
                _ display: String, _ hostHeader: String) throws {
        let endpoint = try RemoteEndpoint(parsing: text)
        #expect(endpoint.scheme == scheme)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
        #expect(endpoint.basePath == basePath)
        #expect(endpoint.displayURL == display)
        #expect(endpoint.hostHeader == hostHeader)
        #expect(try RemoteEndpoint(parsing: endpoint.displayURL) == endpoint, "the display URL parses back")
    }

    @Test func authorityAlwaysHasThePort() throws {
        #expect(try RemoteEndpoint(parsing: "https://example.com").authority == "example.com:443")
        #expect(try RemoteEndpoint(parsing: "http://[::1]").authority == "[::1]:80")
    }

    /// What is wrong with each; `TodoCLITests.RemoteURLTextTests` checks the sentences.
    @Test(arguments: [
        ("ftp://x", .notHTTP),
        ("example.com", .notHTTP),
        ("http:/example.com", .notHTTP),
        ("http://", .noHost),
        ("http:///api", .noHost),
        ("http://:8080", .noHost),
        ("http://h:0", .invalidPort("0")),
        ("http://h:65536", .invalidPort("65536")),
        ("http://h:80a", .invalidPort("80a")),
        ("http://h:", .invalidPort("")),
        ("http://h:-1", .invalidPort("-1")),
        ("http://h/api?x=1", .queryOrFragment),
        ("http://h#top", .queryOrFragment),
        ("http://user:pass@h", .credentials),
        ("http://bad host", .invalidHost("bad host")),
        ("http://h/a b", .pathCharacter(" ")),
        ("http://[::1", .unclosedBracket),
        ("http://[zz]", .invalidIPv6("zz")),
        ("http://[::1]x", .afterBracket),
    ] as [(String, RemoteEndpoint.ParseError.Problem)])
    func rejects(_ text: String, _ problem: RemoteEndpoint.ParseError.Problem) {
        #expect(throws: RemoteEndpoint.ParseError(text, problem)) { try RemoteEndpoint(parsing: text) }
    }
}
