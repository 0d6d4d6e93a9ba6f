/// `.todo/server-tables.json`: the tables the remote listed at the last `todo pull --all-tables`,
/// so that `todo status` (which never goes online) can say which of them this replica does not track.
public struct ServerTableList: Sendable, Equatable {
    /// The remote that answered: a list from another server says nothing about this one.
    public var remote: String
    public var listedAt: String
    public var tables: [String]

    public init(remote: String, listedAt: String, tables: [String]) {
        self.remote = remote
        self.listedAt = listedAt
        self.tables = tables
    }

    /// The listed tables that none of `tracked` names (ignoring case).
    public func untracked(by tracked: [String]) -> [String] {
        tables.filter { name in !tracked.contains { TableName.same($0, name) } }
    }
}
