import TodoModel

/// Writing OData literals (protocol §8.3, §8.4), for clients that build filters such as the pull
/// cursor of §10.5.2, and for printing parsed trees.
public enum ODataLiteral {
    /// A string literal: `it's` → `'it''s'`.
    public static func quoted(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            if scalar == "'" { out += "''" } else { out.unicodeScalars.append(scalar) }
        }
        return out + "'"
    }

    /// `datetimeoffset'T'` with T exactly as given: the pull cursor sends the server's own text back
    /// unchanged, so a server with 7-digit precision gets its 7 digits back (§10.5.2).
    public static func dateTimeOffset(text: String) -> String {
        "datetimeoffset'" + text + "'"
    }

    /// `datetimeoffset'…'` for an instant: three fractional digits, or seven when the instant has
    /// sub-millisecond ticks, so the literal always means exactly this instant.
    public static func dateTimeOffset(_ instant: WireInstant) -> String {
        let exact = instant.ticks % WireInstant.ticksPerMillisecond == 0
        return dateTimeOffset(text: exact ? instant.wireText : instant.sevenDigitText)
    }

    /// The literal that parses back to `value`. Numbers use their JSON text (§4.7.3).
    public static func text(of value: FilterValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return JSONValue.number(d).compactText
        case .string(let s): return quoted(s)
        case .date(let instant): return dateTimeOffset(instant)
        }
    }
}
