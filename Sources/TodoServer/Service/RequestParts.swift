import TableProtocol

/// The route of a request: `/tables/{table}` or `/tables/{table}/{id}` (protocol §3.1).
struct Route {
    var table: String
    /// The decoded id segment, not yet validated (that is check 9).
    var id: String?

    /// Nil for every other path (a 404).
    init?(_ target: HTTPRequestTarget) {
        var segments = target.segments
        if segments.last == "" { segments.removeLast() }  // one trailing slash is ignored
        guard segments.count == 2 || segments.count == 3, segments[0] == "tables" else { return nil }
        table = segments[1]
        id = segments.count == 3 ? segments[2] : nil
    }
}

/// Picks the generation of one request (protocol §2.2): the query parameter wins over the header;
/// neither means G1.
enum GenerationSelector {
    static func select(_ query: [HTTPQueryItem], _ headers: HTTPHeaders, _ config: ServiceConfiguration)
        throws(ServiceError) -> Generation
    {
        let fromQuery = query.filter { $0.name.lowercased() == "zumo-api-version" }
        if fromQuery.count > 1 {
            throw ServiceError(400, "The ZUMO-API-VERSION query parameter was given more than once.", form: .mobileApps)
        }
        guard let value = fromQuery.first?.value ?? headers["ZUMO-API-VERSION"] else {
            guard config.servesMobileServices else {
                throw ServiceError(400, "A ZUMO-API-VERSION of 2.0.0 is required: send the header 'ZUMO-API-VERSION: 2.0.0'.",
                                   form: .mobileApps)
            }
            return .mobileServices
        }
        if matches(value, major: "2", patchRequired: true) {
            guard config.servesMobileApps else {
                throw ServiceError(400, "Mobile Apps requests (ZUMO-API-VERSION 2.0.x) are not served here; omit the version.",
                                   form: .mobileServices)
            }
            return .mobileApps
        }
        if matches(value, major: "3", patchRequired: false) {
            throw ServiceError(400, "ZUMO-API-VERSION \(value) (Datasync) is not served yet; use 2.0.0.", form: .mobileApps)
        }
        throw ServiceError(400, "ZUMO-API-VERSION '\(value)' is not supported; use 2.0.0.", form: .mobileApps)
    }

    /// `^M\.0\.[0-9]+$`, or for `patchRequired: false` also `^M\.0$`. Checked on the bytes, without
    /// splitting (every request asks): whatever matches is ASCII.
    static func matches(_ value: String, major: Character, patchRequired: Bool) -> Bool {
        var value = value
        return value.withUTF8 { b in
            guard b.count >= 3, b[0] == major.asciiValue, b[1] == UInt8(ascii: "."), b[2] == UInt8(ascii: "0") else {
                return false
            }
            if b.count == 3 { return !patchRequired }
            guard b.count > 4, b[3] == UInt8(ascii: ".") else { return false }
            return b[4...].allSatisfy { $0 >= 48 && $0 <= 57 }
        }
    }
}

/// App key check (protocol §3.8), constant-time over the bytes.
enum AppKeyCheck {
    static func matches(_ given: String?, _ expected: String) -> Bool {
        guard let given else { return false }
        let a = Array(given.utf8), b = Array(expected.utf8)
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }
}

/// `If-Match` (protocol §6.2).
enum IfMatch: Equatable {
    case version(String)
    case any
    /// A weak tag: never matches.
    case weak

    /// Nil when the header is absent or empty.
    static func parse(_ raw: String?) throws(ServiceError) -> IfMatch? {
        guard let raw else { return nil }
        let value = raw.trimmingWhitespace()
        if value.isEmpty { return nil }
        if value == "*" { return .any }
        if value.hasPrefix("W/") {
            _ = try quoted(String(value.dropFirst(2)))
            return .weak
        }
        if value.hasPrefix("\"") { return .version(try quoted(value)) }
        if value.contains(",") || value.contains("\"") || value.contains(" ") {
            throw .badRequest("If-Match must hold exactly one entity tag.")
        }
        return .version(value)
    }

    /// `"<v>"` with `\"` and `\\` escapes; anything after the closing quote is an error.
    private static func quoted(_ value: String) throws(ServiceError) -> String {
        var scalars = Array(value.unicodeScalars)
        guard scalars.first == "\"" else { throw .badRequest("If-Match: malformed entity tag '\(value)'.") }
        scalars.removeFirst()
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "\\" && i + 1 < scalars.count { out.append(scalars[i + 1]); i += 2; continue }
            if c == "\"" {
                guard i == scalars.count - 1 else { throw .badRequest("If-Match must hold exactly one entity tag.") }
                return String(out)
            }
            out.append(c)
            i += 1
        }
        throw .badRequest("If-Match: unterminated entity tag '\(value)'.")
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
