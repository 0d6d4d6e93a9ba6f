/// The three-way merge of sync.md §5.6, used by push (on 409/412), pull and `resolve --merge`.
///
/// For every user field of base B, client C and server S (null = absent): equal C and S win
/// (unchanged, or changed identically); a change on one side only wins; different changes on both
/// sides are a clash, which needs a person. Pure: callers decide what a clash becomes.
public enum ThreeWayMerge {
    public enum Result: Equatable, Sendable {
        /// The merged user fields, and which fields came from each side (sorted). A field changed
        /// identically on both sides is in neither list: nothing was taken from one side over the other.
        case merged(fields: [String: JSONValue], fromClient: [String], fromServer: [String])
        /// The fields changed on both sides to different values (sorted).
        case clash([String])
    }

    public static func merge(base: [String: JSONValue], client: [String: JSONValue], server: [String: JSONValue]) -> Result {
        var merged: [String: JSONValue] = [:]
        var fromClient: [String] = [], fromServer: [String] = [], clashes: [String] = []
        for name in Set(base.keys).union(client.keys).union(server.keys).sorted() {
            let b = base[name] ?? .null, c = client[name] ?? .null, s = server[name] ?? .null
            let value: JSONValue
            if c == s {
                value = c
            } else if c == b {
                value = s
                fromServer.append(name)
            } else if s == b {
                value = c
                fromClient.append(name)
            } else {
                clashes.append(name)
                continue
            }
            if !value.isNull { merged[name] = value }
        }
        return clashes.isEmpty ? .merged(fields: merged, fromClient: fromClient, fromServer: fromServer) : .clash(clashes)
    }
}
