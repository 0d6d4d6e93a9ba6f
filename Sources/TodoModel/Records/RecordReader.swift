/// A stored record that cannot be read: names the member and what is wrong with it.
public struct RecordError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Typed access to the members of a JSON object, with messages that name the member.
///
/// Why: a corrupt or hand-edited file must give "\"kind\" is \"upsert\"; expected insert, update or
/// delete", not a decoding stack trace.
public struct RecordReader {
    public let object: [String: JSONValue]

    public init(_ value: JSONValue) throws(RecordError) {
        guard case .object(let o) = value else { throw RecordError("expected a JSON object, found \(value.typeName)") }
        object = o
    }

    public init(object: [String: JSONValue]) { self.object = object }

    public func has(_ key: String) -> Bool { object[key] != nil }

    public func string(_ key: String) throws(RecordError) -> String {
        guard let v = object[key] else { throw RecordError("\"\(key)\" is missing") }
        guard case .string(let s) = v else { throw RecordError("\"\(key)\" must be a string, found \(v.typeName)") }
        return s
    }

    public func optionalString(_ key: String) throws(RecordError) -> String? {
        guard let v = object[key], !v.isNull else { return nil }
        guard case .string(let s) = v else { throw RecordError("\"\(key)\" must be a string or null, found \(v.typeName)") }
        return s
    }

    public func int(_ key: String) throws(RecordError) -> Int {
        guard let v = object[key] else { throw RecordError("\"\(key)\" is missing") }
        guard let i = v.intValue else { throw RecordError("\"\(key)\" must be an integer, found \(v.compactText)") }
        return i
    }

    public func optionalInt(_ key: String) throws(RecordError) -> Int? {
        guard let v = object[key], !v.isNull else { return nil }
        guard let i = v.intValue else { throw RecordError("\"\(key)\" must be an integer or null, found \(v.compactText)") }
        return i
    }

    public func bool(_ key: String, default defaultValue: Bool? = nil) throws(RecordError) -> Bool {
        guard let v = object[key] else {
            if let d = defaultValue { return d }
            throw RecordError("\"\(key)\" is missing")
        }
        guard case .bool(let b) = v else { throw RecordError("\"\(key)\" must be true or false, found \(v.compactText)") }
        return b
    }

    public func optionalObject(_ key: String) throws(RecordError) -> [String: JSONValue]? {
        guard let v = object[key], !v.isNull else { return nil }
        guard case .object(let o) = v else { throw RecordError("\"\(key)\" must be an object or null, found \(v.typeName)") }
        return o
    }

    public func object(_ key: String) throws(RecordError) -> [String: JSONValue] {
        guard let v = object[key] else { throw RecordError("\"\(key)\" is missing") }
        guard case .object(let o) = v else { throw RecordError("\"\(key)\" must be an object, found \(v.typeName)") }
        return o
    }

    public func oneOf<T: RawRepresentable>(_ key: String, _ type: T.Type, expected: String) throws(RecordError) -> T
    where T.RawValue == String {
        let raw = try string(key)
        guard let value = T(rawValue: raw) else { throw RecordError("\"\(key)\" is \"\(raw)\"; expected \(expected)") }
        return value
    }
}
