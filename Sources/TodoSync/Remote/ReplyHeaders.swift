import TableProtocol

/// What an answer's headers say to the sync engines, read once when the answer comes in: a push
/// of 10,000 asked each answer for its table settings and its media type several times, and
/// each time split and trimmed the header text again (issue 16 item 7). Bytes are compared as
/// UTF-8, never walked by `Character`.
public struct ReplyHeaders: Sendable, Equatable {
    /// `X-Todo-Table-Settings`, nil without the header.
    public var tableSettings: ServerTableSettings?
    /// The media type of `Content-Type`, in lower case and without parameters; nil without one.
    public var mediaType: String?
    /// The `ETag` header as sent.
    public var etag: String?

    public init(_ headers: HTTPHeaders, counter: ReplyCounter? = nil) {
        counter?.countParse()
        for field in headers.fields {
            if etag == nil, Self.named(field.name, "etag") {
                etag = field.value
            } else if mediaType == nil, Self.named(field.name, "content-type") {
                mediaType = Self.media(field.value)
            } else if tableSettings == nil, Self.named(field.name, "x-todo-table-settings") {
                tableSettings = ServerTableSettings(header: field.value)
            }
        }
    }

    /// Whether a field name is `lowercased`, any letter case (ASCII).
    static func named(_ name: String, _ lowercased: StaticString) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
            let expected = lowercased.utf8Start
            for i in 0..<bytes.count {
                let byte = bytes[i]
                let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
                if lower != expected[i] { return false }
            }
            return true
        }
    }

    /// `text/HTML; charset=utf-8` -> `text/html`.
    static func media(_ value: String) -> String {
        var bytes = Array(value.utf8.prefix { $0 != UInt8(ascii: ";") })
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        for i in bytes.indices where (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[i]) { bytes[i] |= 0x20 }
        return String(decoding: bytes, as: UTF8.self)
    }
}
