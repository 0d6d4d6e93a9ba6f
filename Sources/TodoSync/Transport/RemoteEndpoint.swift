/// Where a remote lives: `http[s]://host[:port][/base/path]`, checked and taken apart.
///
/// Why strict: the URL comes from the user once (`todo init --remote`) and is then used for every
/// request, so anything we would have to guess about (credentials, a query, odd characters) is
/// refused up front with a message that says what to write instead.
public struct RemoteEndpoint: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable {
        case http
        case https

        public var defaultPort: Int { self == .http ? 80 : 443 }
    }

    /// Why a text is not a usable remote URL: the text as given and what is wrong with it
    /// (`TodoCLI` words it, with what to write instead).
    public struct ParseError: Error, Sendable, Equatable {
        public enum Problem: Sendable, Equatable {
            case notHTTP
            case queryOrFragment
            case credentials
            case noHost
            /// `port` is the text after the colon.
            case invalidPort(String)
            /// A space, a control or a non-ASCII character.
            case pathCharacter(Unicode.Scalar)
            case unclosedBracket
            /// `address` is what is inside the brackets.
            case invalidIPv6(String)
            case afterBracket
            case invalidHost(String)
        }

        public var url: String
        public var problem: Problem

        public init(_ url: String, _ problem: Problem) {
            self.url = url
            self.problem = problem
        }
    }

    public let scheme: Scheme
    /// Lower-cased name or address literal; IPv6 without brackets (`::1`).
    public let host: String
    public let port: Int
    /// Percent-encoded path prefix of every table URL, without a trailing slash; "" for none.
    public let basePath: String

    public init(scheme: Scheme, host: String, port: Int? = nil, basePath: String = "") {
        self.scheme = scheme
        self.host = host
        self.port = port ?? scheme.defaultPort
        self.basePath = basePath
    }

    /// Parses `http[s]://host[:port][/base/path]`; the scheme and host are case-insensitive.
    public init(parsing text: String) throws(ParseError) {
        let lower = text.lowercased()
        let scheme: Scheme
        if lower.hasPrefix("http://") {
            scheme = .http
        } else if lower.hasPrefix("https://") {
            scheme = .https
        } else {
            throw ParseError(text, .notHTTP)
        }
        let rest = text.dropFirst(scheme.rawValue.count + 3)
        if rest.contains("?") || rest.contains("#") {
            throw ParseError(text, .queryOrFragment)
        }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        if authority.contains("@") {
            throw ParseError(text, .credentials)
        }
        let (host, portText) = try Self.splitAuthority(authority, text: text)
        var port = scheme.defaultPort
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit),
                  let value = Int(portText), (1...65_535).contains(value) else {
                throw ParseError(text, .invalidPort(String(portText)))
            }
            port = value
        }
        if let bad = path.unicodeScalars.first(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            throw ParseError(text, .pathCharacter(bad))
        }
        var basePath = String(path)
        while basePath.hasSuffix("/") { basePath.removeLast() }
        self.init(scheme: scheme, host: host, port: port, basePath: basePath)
    }

    /// `host` or `[v6]`, as in URLs and the `Host` header.
    public var hostInURL: String { host.contains(":") ? "[\(host)]" : host }

    /// The `Host` header: the port only when it is not the scheme's default (RFC 9110 §7.2).
    public var hostHeader: String { port == scheme.defaultPort ? hostInURL : "\(hostInURL):\(port)" }

    /// `host:port` always: how failures name the place we tried to reach.
    public var authority: String { "\(hostInURL):\(port)" }

    /// The normalised URL: lower-case scheme and host, default port left out, no trailing slash.
    public var displayURL: String { "\(scheme.rawValue)://\(hostHeader)\(basePath)" }

    public var description: String { displayURL }

    // MARK: - Host

    /// Splits `host[:port]` or `[v6][:port]`; the port text is nil when there is no colon.
    private static func splitAuthority(
        _ authority: Substring, text: String
    ) throws(ParseError) -> (host: String, port: Substring?) {
        if authority.isEmpty {
            throw ParseError(text, .noHost)
        }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ParseError(text, .unclosedBracket)
            }
            let inside = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard !inside.isEmpty, inside.contains(":"),
                  inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw ParseError(text, .invalidIPv6(String(inside)))
            }
            guard after.isEmpty || after.hasPrefix(":") else {
                throw ParseError(text, .afterBracket)
            }
            return (inside.lowercased(), after.isEmpty ? nil : after.dropFirst())
        }
        let colon = authority.firstIndex(of: ":")
        let host = colon.map { authority[..<$0] } ?? authority
        let port = colon.map { authority[authority.index(after: $0)...] }
        if host.isEmpty {
            throw ParseError(text, .noHost)
        }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }),
              !host.hasPrefix("."), !host.hasPrefix("-") else {
            throw ParseError(text, .invalidHost(String(host)))
        }
        return (host.lowercased(), port)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
