/// One header field line, as received or as it will be sent.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Header fields in wire order.
///
/// Order and duplicates are kept because they matter on the wire (`Set-Cookie`, repeated
/// `Content-Length`); lookup ignores letter case because field names are case-insensitive
/// (RFC 9110 §5.1). A linear list beats a dictionary for the dozen fields a request carries.
public struct HTTPHeaders: Sendable, Equatable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPHeader]

    public init() {
        fields = []
    }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    /// Literal order is kept, so `["A": "1", "B": "2"]` is sent as A then B.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    // MARK: Collection

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPHeader { fields[position] }

    // MARK: Lookup

    /// The first value of `name`, any letter case. Setting replaces every field of that name
    /// (keeping the position of the first); setting `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            fields.first { HTTPSyntax.equalsIgnoringCase($0.name, name) }?.value
        }
        set {
            if let newValue { set(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// Every value of `name`, in wire order.
    public func values(for name: String) -> [String] {
        fields.compactMap { HTTPSyntax.equalsIgnoringCase($0.name, name) ? $0.value : nil }
    }

    public func contains(name: String) -> Bool {
        fields.contains { HTTPSyntax.equalsIgnoringCase($0.name, name) }
    }

    /// Whether a comma-separated field (`Connection`, `Vary`, ...) lists `token`, any letter case.
    public func containsToken(_ token: String, forName name: String) -> Bool {
        for value in values(for: name) {
            for element in value.split(separator: ",") {
                let trimmed = element.trimmingHTTPWhitespace()
                if HTTPSyntax.equalsIgnoringCase(trimmed, token) { return true }
            }
        }
        return false
    }

    // MARK: Changes

    /// Room for `minimumCapacity` fields without regrowing (a request or response adds them one
    /// by one, which otherwise regrows the list a few times per message).
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        fields.reserveCapacity(minimumCapacity)
    }

    /// Appends a field, even when one of that name exists.
    public mutating func add(name: String, value: String) {
        fields.append(HTTPHeader(name: name, value: value))
    }

    /// Replaces the value of the first field named `name` and removes the others; appends when absent.
    public mutating func set(name: String, value: String) {
        guard let first = fields.firstIndex(where: { HTTPSyntax.equalsIgnoringCase($0.name, name) }) else {
            add(name: name, value: value)
            return
        }
        fields[first].value = value
        var index = fields.count - 1
        while index > first {
            if HTTPSyntax.equalsIgnoringCase(fields[index].name, name) { fields.remove(at: index) }
            index -= 1
        }
    }

    public mutating func remove(name: String) {
        fields.removeAll { HTTPSyntax.equalsIgnoringCase($0.name, name) }
    }
}

extension StringProtocol {
    /// Drops optional whitespace (SP, HTAB) at both ends, as field values allow (RFC 9110 §5.6.3).
    func trimmingHTTPWhitespace() -> SubSequence {
        var start = startIndex
        var end = endIndex
        while start < end, self[start] == " " || self[start] == "\t" { start = index(after: start) }
        while end > start {
            let before = index(before: end)
            guard self[before] == " " || self[before] == "\t" else { break }
            end = before
        }
        return self[start..<end]
    }
}
