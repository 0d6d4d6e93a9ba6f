import TodoModel

/// Asks the server which tables it has (`GET /tables`, todo-server's route; issue 19 item 6), so
/// `todo pull --all-tables` can bring tables created after the clone.
public enum ServerTables {
    public enum Answer: Sendable, Equatable {
        /// The tables the caller may read, as the server spells them.
        case names([String])
        /// The server has no such route (a foreign server, or an older todo-server): a sentence
        /// that says so and what to do instead.
        case cannotList(String)
        case stopped(SyncStop)
    }

    public static func list(_ client: TableClient) -> Answer {
        let name = client.endpoint?.displayURL ?? "the remote"
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
                    return .cannotList("\(name) answered the list of tables with something else than a list, so it cannot list its tables; "
                                       + "name each table you want: 'todo pull --table NAME'")
                }
                return .names(rows.compactMap { $0.objectValue?["name"]?.stringValue }.filter { TableName.problem($0) == nil })
            case 401, 403:
                return .stopped(.auth(reply))
            case 408, 429, 500...599:
                return .stopped(.server(reply))
            default:
                return .cannotList("\(name) cannot list its tables (GET /tables answered \(reply.status)): it is not a todo-server, "
                                   + "or an older one; name each table you want: 'todo pull --table NAME'")
            }
        }
    }
}
