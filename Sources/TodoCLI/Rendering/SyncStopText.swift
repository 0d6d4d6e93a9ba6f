import TodoSync

/// The sentence a user reads for each reason a push, pull or check stopped (sync.md §4.9, §5.9):
/// what came back, and where it helps, what to do. Worded here, in one place, for the text
/// output and for `--json`'s `stop.message`; the sync library only says which reason it was.
enum SyncStopText {
    static func sentence(_ stop: SyncStop) -> String {
        switch stop.reason {
        case .refused(let status, let said):
            "the server refused the token/key (\(status))\(said.map { ": " + $0.trimmingFinalStop } ?? ""); "
                + "check 'todo remote set --token-file FILE' (a user's token) or '--app-key-file FILE' (the app key)"
        case .serverTrouble(let status, let said):
            "after 3 attempts the server still answered \(status)\(said.map { ": " + $0.trimmingFinalStop } ?? ""); try again later"
        case .requestTimedOut:
            "the server timed out the request (408) 3 times"
        case .network(let failure):
            TransportFailureText.sentence(failure)
        case .unexpectedLookupAnswer(let status, let table, let id, let said):
            "unexpected answer \(status) to the query for \(table)/\(id)\(said.map { ": " + $0 } ?? "")"
        case .methodNotAllowed(let method, let table):
            "the server does not allow \(method) on table '\(table)' (405)"
        case .noTable(let table):
            "the server has no table '\(table)'"
        case .integerIDs(let table, _):
            integerIDs(table)
        case .undeleteUnread(let id):
            "the undelete of \(id) succeeded but the server copy could not be read; run 'todo push' again"
        case .idFilterIgnored(let table, let id, _):
            "the server ignored $filter=id eq '\(id)' (it answered rows of other ids), so the server copy of \(table)/\(id) "
                + "cannot be known; the operation stays queued. Check the remote URL, or a proxy in between"
        case .notPaging(let fault, .pull(let table, let queryID), let rows):
            "the server does not page as asked: \(text(fault)). "
                + "\(queryID.map { "query '\($0)' of \(table)" } ?? "the pull of \(table)") stopped after \(rows) rows, "
                + "which are kept; check the remote URL, or a proxy in between"
        case .notPaging(let fault, .check(let table), let rows):
            "the server does not page as asked: \(text(fault)); the check of \(table) stopped after \(rows) rows"
        case .wrongURL(let wrong, let remote):
            wrongURL(wrong, remote: remote)
        }
    }

    /// Also a pull's refusal of such a table (`QueryRefusal.integerIDs`).
    static func integerIDs(_ table: String) -> String {
        "table '\(table)' uses integer ids (autoIncrement); todo syncs only tables with string ids"
    }

    static func text(_ fault: PagingFault) -> String {
        switch fault {
        case .samePageAgain: "it answered the same page again (it ignores $skip)"
        case .outOfOrder: "its rows are not in updatedAt order (it ignores $orderby), so paging by $skip would miss rows"
        case .beforeTheBound: "it answered rows before the requested updatedAt (it ignores $filter)"
        case .nothingNew(let rows): "its last \(rows) rows were all rows this pull already had (it ignores $filter or $skip)"
        }
    }

    /// One sentence naming what came back and what to set instead, never the page itself.
    static func wrongURL(_ wrong: WrongURL, remote: RemoteEndpoint?) -> String {
        let name = remote?.displayURL ?? "the remote"
        let example = remote.map { "e.g. \($0.scheme.rawValue)://\($0.hostInURL):8080" } ?? "e.g. http://host:8080"
        let checkURL = "check the URL (it should be the table server's base URL, \(example))"
        return switch wrong {
        case .otherJSON(let status):
            "\(name) answered \(status) with JSON that is not a list of rows, not the table protocol: \(checkURL)"
        case .redirectNowhere(let status):
            "\(name) answered a redirect (\(status)) without saying where to: \(checkURL)"
        case .redirect(_, let location, let remoteURL):
            "\(name) redirects to \(location): set that URL with 'todo remote set \(remoteURL)'"
        case .webPage(let status, let type):
            "\(name) answered with a web page (\(type), status \(status)), not the table protocol: \(checkURL)"
        }
    }
}

extension String {
    /// The server's sentence without its full stop, to go on inside ours.
    fileprivate var trimmingFinalStop: String { hasSuffix(".") ? String(dropLast()) : self }
}
