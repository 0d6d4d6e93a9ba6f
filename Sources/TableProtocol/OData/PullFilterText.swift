/// The `$filter` texts a client sends for incremental pulls (protocol §10.5). Pure text building;
/// the client picks the generation's spelling of `updatedAt` (`Generation.name(.updatedAt)`).
public enum PullFilterText {
    /// Cursor mode (§10.5.2), T being the server's own updatedAt text, sent back unchanged:
    /// `(updatedAt gt datetimeoffset'T') or ((updatedAt eq datetimeoffset'T') and (id gt 'I'))`.
    public static func cursorCondition(updatedAtName: String, updatedAtText: String, id: String) -> String {
        let t = ODataLiteral.dateTimeOffset(text: updatedAtText)
        return "(\(updatedAtName) gt \(t)) or ((\(updatedAtName) eq \(t)) and (id gt \(ODataLiteral.quoted(id))))"
    }

    /// Fallback mode (§10.5.3): `updatedAt ge datetimeoffset'T'`.
    public static func fallbackCondition(updatedAtName: String, updatedAtText: String) -> String {
        "\(updatedAtName) ge \(ODataLiteral.dateTimeOffset(text: updatedAtText))"
    }

    /// The page's `$filter` (§10.5.1): `(q) and (condition)`, or whichever one exists, or nil
    /// (no `$filter` parameter).
    public static func combine(query: String?, condition: String?) -> String? {
        switch (query, condition) {
        case let (q?, c?): return "(\(q)) and (\(c))"
        case let (q?, nil): return q
        case let (nil, c?): return c
        case (nil, nil): return nil
        }
    }
}
