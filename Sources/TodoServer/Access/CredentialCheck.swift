import TableProtocol

/// Check 6 of protocol §3.6, with users: who the request's credentials prove it is.
///
/// A credential that is sent must be right: a wrong or revoked token, or a wrong master key, is a
/// 401 whatever the operation, even a public one, so a client never goes on believing it acts as
/// someone it is not. The app key is checked only when the server has one (protocol §3.8.2).
/// The caller's level is the highest its credentials prove.
enum CredentialCheck {
    static func caller(_ headers: HTTPHeaders, _ configuration: ServiceConfiguration) throws(ServiceError) -> Caller {
        var caller = Caller.anonymous
        if let given = headers["X-ZUMO-APPLICATION"], let key = configuration.appKey {
            guard AppKeyCheck.matches(given, key) else {
                throw ServiceError(401, "Unauthorized: the app key (X-ZUMO-APPLICATION) is wrong.")
            }
            caller.level = .application
        }
        if let token = headers["X-ZUMO-AUTH"] {
            switch configuration.users?.lookup(token) ?? .unknown {
            case .user(let name):
                caller.level = max(caller.level, .user)
                caller.user = name
            case .unknown:
                throw ServiceError(401, "Unauthorized: the token (X-ZUMO-AUTH) is not one this server issued, or it was "
                    + "revoked; ask the server's operator for a new one (todo-server user token NAME).")
            case .unavailable(let problem):
                throw ServiceError(503, "The server cannot check tokens: \(problem).")
            }
        }
        if let given = headers["X-ZUMO-MASTER"] {
            guard let key = configuration.masterKey else {
                throw ServiceError(401, "Unauthorized: this server has no master key; leave X-ZUMO-MASTER out.")
            }
            guard AppKeyCheck.matches(given, key) else {
                throw ServiceError(401, "Unauthorized: the master key (X-ZUMO-MASTER) is wrong.")
            }
            caller.level = .admin
        }
        return caller
    }

    /// The 401 for a caller whose credentials are right but not enough for `operation`.
    static func refusal(_ operation: AccessOperation, table: String, needed: AccessLevel) -> ServiceError {
        ServiceError(401, "Unauthorized: \(operation.gerund) the table '\(table)' needs \(needed.credential).")
    }
}
