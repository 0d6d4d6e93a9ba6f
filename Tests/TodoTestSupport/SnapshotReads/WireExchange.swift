import TodoModel

/// One HTTP request of a table workload, independent of any client or server implementation, so a
/// workload can run against `todo-server` in-process, the built binary, or another backend.
public struct WireRequest: Sendable {
    public var method: String
    /// Path and query, e.g. `/tables/todoitem?%24top=50`; the sender adds scheme, host and port.
    public var target: String
    public var headers: [(String, String)]
    public var body: String?

    public init(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// `METHOD target`, for messages.
    public var line: String { "\(method) \(target)" }
}

/// The answer to a `WireRequest`.
public struct WireReply: Sendable {
    public var status: Int
    /// Header values by lower-case name (the last one wins).
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var json: JSONValue? { try? JSONValue.parse(body) }
    public var text: String { String(decoding: body, as: UTF8.self) }
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Sends one request on a connection of its own and waits for the answer. One per thread: a
/// workload calls `connect` once on each of its threads.
public typealias WireSend = (WireRequest) throws -> WireReply

/// Percent-encoding of query names and values: every byte outside `A–Z a–z 0–9 - . _ ~`.
public enum WireQuery {
    public static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    /// `name=value&…`, each part encoded.
    public static func string(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}
