import TableProtocol

/// Why a push or pull stopped early (sync.md §4.9, §5.9). Everything committed before stays.
///
/// A value, not a sentence: the command line words each reason (`SyncStopText` in TodoCLI) and
/// maps its kind to an exit status, so a test of the engines asserts what happened, not how it reads.
public struct SyncStop: Error, Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Network failure or timeout after the retries: exit 4.
        case network
        /// 401 or 403: exit 4.
        case auth
        /// 429 or 5xx after the retries: exit 4.
        case server
        /// 405, missing table: exit 1.
        case config
        /// The URL points at something else than a table server (a web page, a redirect, other
        /// JSON): exit 1.
        case wrongURL = "url"
    }

    /// What happened, with what the server said of it.
    public enum Reason: Sendable, Equatable {
        /// 401 or 403: the server refused the token or the app key.
        case refused(status: Int, serverMessage: String?)
        /// 429 or 5xx, still after the retries.
        case serverTrouble(status: Int, serverMessage: String?)
        /// 408, still after the retries.
        case requestTimedOut
        /// No answer: the network, or TLS.
        case network(TransportFailure)
        /// An answer the protocol gives no meaning to, for the one-row query of an item's server copy.
        case unexpectedLookupAnswer(status: Int, table: String, id: String, serverMessage: String?)
        /// 405 to a write: the server does not allow this method on the table.
        case methodNotAllowed(method: String, table: String)
        /// A 404 to a write, and the table itself is missing.
        case noTable(String)
        /// The table's ids are integers the server hands out (sync.md §10.2).
        case integerIDs(table: String, status: Int)
        /// An undelete landed but the server copy could not be read after it.
        case undeleteUnread(id: String)
        /// The one-row query by id answered rows of other ids: the server ignores `$filter`.
        case idFilterIgnored(table: String, id: String, status: Int)
        /// The pages stopped making progress (`PageProgress`) after `rows` rows of `read`.
        case notPaging(PagingFault, read: PagedRead, rows: Int)
        /// The URL points at something else than a table server (issue 19 item 4).
        case wrongURL(WrongURL, remote: RemoteEndpoint?)
    }

    public var reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var kind: Kind {
        switch reason {
        case .refused: .auth
        case .serverTrouble, .undeleteUnread, .idFilterIgnored, .notPaging: .server
        case .requestTimedOut, .network: .network
        case .unexpectedLookupAnswer, .methodNotAllowed, .noTable, .integerIDs: .config
        case .wrongURL: .wrongURL
        }
    }

    /// The HTTP status behind the stop, when an answer caused it.
    public var status: Int? {
        switch reason {
        case .refused(let status, _), .serverTrouble(let status, _), .unexpectedLookupAnswer(let status, _, _, _),
             .integerIDs(_, let status), .idFilterIgnored(_, _, let status):
            status
        case .requestTimedOut: 408
        case .methodNotAllowed: 405
        case .noTable: 404
        case .wrongURL(let wrong, _): wrong.status
        case .network, .undeleteUnread, .notPaging: nil
        }
    }

    /// A network stop where TLS failed (an untrusted or wrong-host certificate, https spoken to a
    /// plain port): trying again changes nothing until its cause is fixed.
    public var tlsFailed: Bool {
        if case .network(.tlsFailed) = reason { return true }
        return false
    }

    /// A network stop where the server got our request damaged (`UnreadableRequest`): the server
    /// is reachable, so "when it is reachable" would send the user looking in the wrong place.
    public var requestDamaged: Bool {
        if case .network(.unreadableRequest) = reason { return true }
        return false
    }

    static func auth(_ reply: TableReply) -> SyncStop {
        SyncStop(.refused(status: reply.status, serverMessage: reply.message))
    }

    static func server(_ reply: TableReply) -> SyncStop {
        SyncStop(.serverTrouble(status: reply.status, serverMessage: reply.message))
    }

    static func network(_ failure: TransportFailure) -> SyncStop {
        SyncStop(.network(failure))
    }
}

/// How a server's pages fail to make progress (`PageProgress`).
public enum PagingFault: Sendable, Equatable {
    /// A skip or plain page repeated the page before it: the server ignores `$skip`.
    case samePageAgain
    /// A skip page not in `updatedAt` order: the server ignores `$orderby`.
    case outOfOrder
    /// A skip page with rows before its `updatedAt ge` bound: the server ignores `$filter`.
    case beforeTheBound
    /// Pages brought only rows already had, `rows` of them: the server ignores `$filter` or `$skip`.
    case nothingNew(rows: Int)
}

/// The paged read a `PagingFault` stopped.
public enum PagedRead: Sendable, Equatable {
    /// A pull's query: a stored one (`queryID`), or a one-off filter (nil).
    case pull(table: String, queryID: String?)
    /// `todo pull --verify`'s read of a table.
    case check(table: String)
}

/// An answer that cannot come from the table protocol (`TableClient.foreignAnswer`).
public enum WrongURL: Sendable, Equatable {
    /// A 2xx JSON answer that is not the list of rows asked for.
    case otherJSON(status: Int)
    /// A redirect to `location` (made absolute); `remoteURL` is the remote it stands for.
    case redirect(status: Int, location: String, remoteURL: String)
    /// A redirect without a `Location`.
    case redirectNowhere(status: Int)
    /// An HTML page, of this media type.
    case webPage(status: Int, mediaType: String)

    public var status: Int {
        switch self {
        case .otherJSON(let status), .redirect(let status, _, _), .redirectNowhere(let status), .webPage(let status, _): status
        }
    }
}
