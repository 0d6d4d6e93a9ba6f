import TodoBasics

/// The start-up conversation (§55.2.1): StartupMessage, then authentication, BackendKeyData and
/// ParameterStatus until ReadyForQuery. Authentication is trust (the server asks for nothing) or
/// SCRAM-SHA-256; the older methods (cleartext `password`, `md5`) are refused with the fix.
struct Startup {
    let connection: PostgresConnection
    let deadline: Deadline

    private var config: PostgresConfig { connection.config }

    func run() throws(PostgresError) {
        try send(.startup(parameters: config.startupParameters))
        var scram: SCRAMClient?
        var expectedSignature: [UInt8]?
        var serverVerified = false
        while true {
            switch try receive() {
            case .authentication(.ok):
                guard scram == nil || serverVerified else {
                    throw .authenticationFailed("the server ended SCRAM without proving it knows the password: "
                                                + "it may not be the server you meant")
                }
            case .authentication(.sasl(let mechanisms)):
                guard mechanisms.contains("SCRAM-SHA-256") else {
                    throw .authenticationFailed("the server offers \(mechanisms.joined(separator: ", ")), "
                                                + "and this client speaks only SCRAM-SHA-256")
                }
                guard let password = config.password else {
                    throw .authenticationFailed("the server wants a password for user \"\(config.user)\" at \(config.endpoint) "
                                                + "and none was given: set PGPASSWORD or a password file (passfile=PATH)")
                }
                let client = SCRAMClient(password: password, nonce: SCRAMClient.makeNonce())
                scram = client
                try send(.saslInitialResponse(mechanism: "SCRAM-SHA-256", data: Array(client.clientFirstMessage.utf8)))
            case .authentication(.saslContinue(let data)):
                guard let client = scram else { throw .protocolViolation("SCRAM continuation without a SCRAM exchange") }
                let reply = try client.reply(toServerFirst: String(decoding: data, as: UTF8.self))
                expectedSignature = reply.expectedServerSignature
                try send(.saslResponse(data: Array(reply.clientFinalMessage.utf8)))
            case .authentication(.saslFinal(let data)):
                guard let expectedSignature else { throw .protocolViolation("SCRAM final message before the challenge") }
                try SCRAMClient.verify(serverFinal: String(decoding: data, as: UTF8.self), expected: expectedSignature)
                serverVerified = true
            case .authentication(.other(let code)):
                throw .authenticationFailed(Self.unsupportedMethod(code))
            case .backendKeyData(let processID, let secretKey):
                connection.processID = processID
                connection.secretKey = secretKey
            case .parameterStatus(let name, let value):
                connection.serverParameters[name] = value
            case .readyForQuery(let status):
                connection.transactionStatus = status
                return
            case .error(let error):
                throw refusal(error)
            case .notice, .ignored:
                continue
            default:
                throw .protocolViolation("unexpected message during start-up")
            }
        }
    }

    private func send(_ message: FrontendMessage) throws(PostgresError) {
        do {
            try connection.socket.writeAll(message.encoded(), until: deadline)
        } catch {
            throw wireFailure(error)
        }
    }

    private func receive() throws(PostgresError) -> BackendMessage {
        do {
            return try connection.nextMessage(until: deadline)
        } catch let error as WireFailure {
            throw wireFailure(error)
        } catch let error as PostgresError {
            throw error
        } catch {
            throw .protocolViolation("\(error)")
        }
    }

    private func wireFailure(_ error: WireFailure) -> PostgresError {
        switch error {
        case .timedOut:
            return .cannotConnect("\(config.endpoint) did not finish the start-up within \(deadline.text) (connect timeout)")
        case .closed(let reason):
            return .cannotConnect("\(config.endpoint) closed the connection during start-up (\(reason))")
        }
    }

    /// An ErrorResponse during start-up: bad credentials, a missing database, a server not ready.
    private func refusal(_ error: PostgresServerError) -> PostgresError {
        switch error.sqlState {
        case SQLState.invalidPassword, SQLState.invalidAuthorization:
            return .authenticationFailed("\(error.message) (at \(config.endpoint)): check the user name and the password "
                                         + "in PGPASSWORD or the password file, and pg_hba.conf on the server")
        case SQLState.cannotConnectNow:
            return .cannotConnect("\(config.endpoint) is not accepting connections yet (\(error.message)): it is starting, "
                                  + "stopping or in recovery; try again shortly")
        case SQLState.invalidCatalogName:
            return .cannotConnect("\(error.message) at \(config.endpoint): create it (createdb) or fix the database name")
        default:
            return .cannotConnect("\(config.endpoint) refused the session: \(error)")
        }
    }

    static func unsupportedMethod(_ code: Int32) -> String {
        let name: String
        switch code {
        case 3: name = "a cleartext password"
        case 5: name = "an md5 password"
        case 7, 8: name = "GSSAPI"
        case 9: name = "SSPI"
        default: name = "authentication method \(code)"
        }
        return "the server asks for \(name), which this client does not support: use scram-sha-256 (or trust on a "
            + "unix socket) in pg_hba.conf, with password_encryption = scram-sha-256 and the password set again"
    }
}
