import TableProtocol
import TodoModel

/// A request that fails: its status, a message for people, and what the response needs.
/// Thrown inside the service; `TableService` turns it into the generation's error body (§3.5).
struct ServiceError: Error {
    var status: Int
    var message: String
    /// The error-body form; nil means "the request's generation" (or G2 before it is known).
    var form: Generation?
    var allow: String?

    init(_ status: Int, _ message: String, form: Generation? = nil, allow: String? = nil) {
        self.status = status
        self.message = message
        self.form = form
        self.allow = allow
    }

    static func badRequest(_ message: String) -> ServiceError { ServiceError(400, message) }
    static func notFound(_ message: String) -> ServiceError { ServiceError(404, message) }
    /// A write refused by a limit of `StorageLimits` (issue 17): 507 for a quota (tables, rows,
    /// memory), 413 for a row too large. The message says which limit, its option, and what to do.
    static func limit(_ error: StorageError) -> ServiceError {
        ServiceError(error.kind == .rowTooLarge ? 413 : 507, sentence(error.message))
    }

    /// A value the storage cannot hold as given (400): the request is at fault, not the server.
    static func invalidValue(_ error: StorageError) -> ServiceError { ServiceError(400, sentence(error.message)) }

    /// "the row ... split it" as a sentence: capitalised, with a full stop.
    private static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst() + (text.hasSuffix(".") ? "" : ".")
    }

    /// A write storage could not make durable: 503, nothing was acknowledged.
    static func storageUnavailable(_ error: any Error) -> ServiceError {
        ServiceError(503, "The storage is unavailable: \(error).")
    }
}

enum ErrorBody {
    /// G1: `{"code": <status>, "error": "Error: <message>"}`; G2: `{"error": "<message>"}`.
    static func json(status: Int, message: String, generation: Generation) -> JSONValue {
        switch generation {
        case .mobileServices: return ["code": .number(Double(status)), "error": .string("Error: " + message)]
        case .mobileApps: return ["error": .string(message)]
        }
    }
}
