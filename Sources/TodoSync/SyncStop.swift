/// Why a push or pull stopped early (sync.md §4.9, §5.9). Everything committed before stays.
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
        /// JSON): exit 1. Its message is the whole story, with what to set.
        case wrongURL = "url"
    }

    public var kind: Kind
    public var status: Int?
    public var message: String
    /// A network stop where TLS failed (an untrusted or wrong-host certificate, https spoken to a
    /// plain port): trying again changes nothing until the cause its message names is fixed.
    public var tlsFailed = false

    public init(_ kind: Kind, status: Int? = nil, message: String) {
        self.kind = kind
        self.status = status
        self.message = message
    }

    static func auth(_ reply: TableReply) -> SyncStop {
        SyncStop(.auth, status: reply.status,
                 message: "the server refused the token/key (\(reply.status))\(reply.message.map { ": " + $0.trimmingFinalStop } ?? ""); "
                     + "check 'todo remote set --token-file FILE' (a user's token) or '--app-key-file FILE' (the app key)")
    }

    static func server(_ reply: TableReply) -> SyncStop {
        SyncStop(.server, status: reply.status,
                 message: "after 3 attempts the server still answered \(reply.status)\(reply.message.map { ": " + $0.trimmingFinalStop } ?? ""); "
                     + "try again later")
    }

    static func network(_ failure: TransportFailure) -> SyncStop {
        var stop = SyncStop(.network, message: failure.message)
        if case .tlsFailed = failure { stop.tlsFailed = true }
        return stop
    }

    static func unexpected(_ reply: TableReply, doing what: String) -> SyncStop {
        SyncStop(.config, status: reply.status,
                 message: "unexpected answer \(reply.status) to \(what)\(reply.message.map { ": " + $0 } ?? "")")
    }
}

extension String {
    /// The server's sentence without its full stop, to go on inside ours.
    fileprivate var trimmingFinalStop: String { hasSuffix(".") ? String(dropLast()) : self }
}
