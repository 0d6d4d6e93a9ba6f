import TodoModel

/// Asks the server which tables it has (`GET /tables`, todo-server's route; issue 19 item 6), so
/// `todo pull --all-tables` can bring tables created after the clone.
public enum ServerTables {
    public enum Answer: Sendable, Equatable {
        /// The tables the caller may read, as the server spells them.
        case names([String])
        /// The server has no such route (a foreign server, or an older todo-server).
        case cannotList(Unlisted)
        case stopped(SyncStop)
    }

    /// How a server showed it cannot list its tables.
    public enum Unlisted: Sendable, Equatable {
        /// A 2xx that is not a list.
        case notAList
        /// Another status than 2xx, 401, 403, 408, 429 or 5xx.
        case status(Int)
    }

    public static func list(_ client: TableClient) -> Answer {
        switch client.read(.listTables, purpose: .pull) {
        case .failure(let failure):
            return .stopped(.network(failure))
        case .success(let reply):
            // A server without the route answers 404 (or 400, 405), maybe as a web page: that is
            // "cannot list", not a wrong URL (the tables themselves may be served fine).
            if ![400, 404, 405].contains(reply.status), let stop = client.foreignAnswer(reply) { return .stopped(stop) }
            switch reply.status {
            case 200...299:
                guard case .array(let rows)? = reply.body else {
                    return .cannotList(.notAList)
                }
                return .names(rows.compactMap { $0.objectValue?["name"]?.stringValue }.filter { TableName.problem($0) == nil })
            case 401, 403:
                return .stopped(.auth(reply))
            case 408, 429, 500...599:
                return .stopped(.server(reply))
            default:
                return .cannotList(.status(reply.status))
            }
        }
    }
}
