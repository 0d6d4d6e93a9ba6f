import TodoModel

/// JSON strings for the server's hot paths (every answer and every log record writes several).
///
/// The same bytes as `JSONText.appendString`: a string that needs no escaping is copied between
/// quotes, and any other goes to that writer. Why: its check walks `String.UTF8View` byte by byte,
/// which cost more than the copy; here the check runs over the contiguous bytes.
enum JSONStringBytes {
    static func append(_ string: String, to out: inout [UInt8]) {
        let copied = string.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return false
            }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if copied != true { JSONText.appendString(string, to: &out) }
    }

    /// `JSONText.appendValue`, with strings through `append`.
    static func appendValue(_ value: JSONValue, to out: inout [UInt8]) {
        if case .string(let string) = value {
            append(string, to: &out)
        } else {
            JSONText.appendValue(value, to: &out)
        }
    }
}
