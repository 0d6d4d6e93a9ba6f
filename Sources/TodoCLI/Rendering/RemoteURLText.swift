import TodoSync

/// Why a remote URL cannot be used, as one line for people: what is wrong with it and what to
/// write instead (`todo init --remote`, `todo remote set`, `todo doctor`, a stored remote).
enum RemoteURLText {
    static func sentence(_ error: RemoteEndpoint.ParseError) -> String {
        let usage = "use http://HOST[:PORT][/PATH]"
        let what = switch error.problem {
        case .notHTTP: "is not an http or https URL; \(usage)"
        case .queryOrFragment: "has a query or fragment ('?' or '#'); a remote is a base URL: \(usage)"
        case .credentials: "contains a user name or password; \(usage) (the app key is a separate setting)"
        case .noHost: "has no host; \(usage)"
        case .invalidPort(let port): "has an invalid port '\(port)'; a port is a number from 1 to 65535"
        case .pathCharacter(let c):
            "has \(c.value == 0x20 ? "a space" : "the character U+\(String(c.value, radix: 16, uppercase: true))") in its path; "
                + "percent-encode it (%20 for a space)"
        case .unclosedBracket: "has an unclosed '[' in its host; write IPv6 addresses as [::1]"
        case .invalidIPv6(let address): "has an invalid IPv6 address '[\(address)]'"
        case .afterBracket: "has characters after ']' that are not a port"
        case .invalidHost(let host): "has an invalid host '\(host)'; use a name such as example.com or an address such as 127.0.0.1"
        }
        return "'\(error.url)' \(what)"
    }
}
