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

    @Test(arguments: [
        ("ftp://x", "'ftp://x' is not an http or https URL; use http://HOST[:PORT][/PATH]"),
        ("example.com", "'example.com' is not an http or https URL; use http://HOST[:PORT][/PATH]"),
        ("http:/example.com", "'http:/example.com' is not an http or https URL; use http://HOST[:PORT][/PATH]"),
        ("http://", "'http://' has no host; use http://HOST[:PORT][/PATH]"),
        ("http:///api", "'http:///api' has no host; use http://HOST[:PORT][/PATH]"),
        ("http://:8080", "'http://:8080' has no host; use http://HOST[:PORT][/PATH]"),
        ("http://h:0", "'http://h:0' has an invalid port '0'; a port is a number from 1 to 65535"),
        ("http://h:65536", "'http://h:65536' has an invalid port '65536'; a port is a number from 1 to 65535"),
        ("http://h:80a", "'http://h:80a' has an invalid port '80a'; a port is a number from 1 to 65535"),
        ("http://h:", "'http://h:' has an invalid port ''; a port is a number from 1 to 65535"),
        ("http://h:-1", "'http://h:-1' has an invalid port '-1'; a port is a number from 1 to 65535"),
        ("http://h/api?x=1", "'http://h/api?x=1' has a query or fragment ('?' or '#'); a remote is a base URL: use http://HOST[:PORT][/PATH]"),
        ("http://h#top", "'http://h#top' has a query or fragment ('?' or '#'); a remote is a base URL: use http://HOST[:PORT][/PATH]"),
        ("http://user:pass@h", "'http://user:pass@h' contains a user name or password; use http://HOST[:PORT][/PATH] (the app key is a separate setting)"),
        ("http://bad host", "'http://bad host' has an invalid host 'bad host'; use a name such as example.com or an address such as 127.0.0.1"),
        ("http://h/a b", "'http://h/a b' has a space in its path; percent-encode it (%20 for a space)"),
        ("http://[::1", "'http://[::1' has an unclosed '[' in its host; write IPv6 addresses as [::1]"),
        ("http://[zz]", "'http://[zz]' has an invalid IPv6 address '[zz]'"),
        ("http://[::1]x", "'http://[::1]x' has characters after ']' that are not a port"),
    ])
    func rejects(_ text: String, _ message: String) {
        #expect(throws: RemoteEndpoint.ParseError(message: message)) { try RemoteEndpoint(parsing: text) }
    }
}
