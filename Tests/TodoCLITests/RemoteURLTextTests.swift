import Testing
@testable import TodoCLI
import TodoSync

/// The sentence for each way a remote URL is refused: what is wrong and what to write instead.
@Suite struct RemoteURLTextTests {
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
    func sentence(_ text: String, _ sentence: String) {
        do throws(RemoteEndpoint.ParseError) {
            _ = try RemoteEndpoint(parsing: text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(RemoteURLText.sentence(error) == sentence)
        }
    }

    @Test func aControlCharacterIsNamedByItsCodePoint() {
        #expect(RemoteURLText.sentence(.init("http://h/a\u{7}", .pathCharacter("\u{7}")))
                    == "'http://h/a\u{7}' has the character U+7 in its path; percent-encode it (%20 for a space)")
    }
}
