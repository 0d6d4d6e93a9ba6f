import TodoBasics

/// The client side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it, without
/// channel binding (there is no TLS to bind to): client-first, then the proof for the server's
/// challenge, then the check of the server's signature, so a server that does not know the
/// password cannot pretend to.
struct SCRAMClient {
    let clientNonce: String
    /// `n=user,r=nonce`. PostgreSQL takes the user from the startup message and leaves this empty.
    let clientFirstBare: String
    private let password: [UInt8]

    init(user: String = "", password: String, nonce: String) {
        clientNonce = nonce
        let escapedUser = user.replacingEvery("=", with: "=3D").replacingEvery(",", with: "=2C")
        clientFirstBare = "n=\(escapedUser),r=\(nonce)"
        self.password = Self.prepare(password)
    }

    /// `n,,` says: no channel binding, none asked for.
    var clientFirstMessage: String { "n,," + clientFirstBare }

    /// What the client sends back, and the server signature the server's final message must carry.
    struct Reply {
        let clientFinalMessage: String
        let expectedServerSignature: [UInt8]
    }

    func reply(toServerFirst serverFirst: String) throws(PostgresError) -> Reply {
        var attributes: [Character: String] = [:]
        for part in serverFirst.split(separator: ",", omittingEmptySubsequences: false) {
            guard part.count >= 2, part.dropFirst().first == "=" else {
                throw .protocolViolation("SCRAM: the server's first message is malformed (\(serverFirst))")
            }
            attributes[part.first!] = String(part.dropFirst(2))
        }
        guard attributes["m"] == nil else {
            throw .protocolViolation("SCRAM: the server asks for an extension this client does not know")
        }
        guard let nonce = attributes["r"], nonce.hasPrefix(clientNonce), nonce.count > clientNonce.count else {
            throw .protocolViolation("SCRAM: the server's nonce does not extend ours; refusing to authenticate")
        }
        guard let saltText = attributes["s"], let salt = Base64.decode(saltText) else {
            throw .protocolViolation("SCRAM: the server sent no usable salt")
        }
        guard let iterationText = attributes["i"], let iterations = Int(iterationText), iterations >= 1 else {
            throw .protocolViolation("SCRAM: the server sent no usable iteration count")
        }
        let withoutProof = "c=biws,r=\(nonce)"  // biws = base64("n,,")
        let authMessage = Array("\(clientFirstBare),\(serverFirst),\(withoutProof)".utf8)

        let saltedPassword = PBKDF2.sha256(password: password, salt: salt, iterations: iterations, length: 32)
        let clientKey = HMACSHA256.authenticate(Array("Client Key".utf8), key: saltedPassword)
        let storedKey = SHA256.hash(clientKey)
        let clientSignature = HMACSHA256.authenticate(authMessage, key: storedKey)
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = HMACSHA256.authenticate(Array("Server Key".utf8), key: saltedPassword)
        let serverSignature = HMACSHA256.authenticate(authMessage, key: serverKey)
        return Reply(clientFinalMessage: "\(withoutProof),p=\(Base64.encode(proof))",
                     expectedServerSignature: serverSignature)
    }

    /// Checks the server's final message (`v=signature`, or `e=error`).
    static func verify(serverFinal: String, expected: [UInt8]) throws(PostgresError) {
        if serverFinal.hasPrefix("e=") {
            throw .authenticationFailed("SCRAM: the server refused the proof (\(serverFinal.dropFirst(2)))")
        }
        let signature = serverFinal.split(separator: ",").first { $0.hasPrefix("v=") }.map { String($0.dropFirst(2)) }
        guard let signature, Base64.decode(signature) == expected else {
            throw .authenticationFailed(
                "SCRAM: the server's signature is wrong, so it does not know the password: it may not be the server you meant")
        }
    }

    /// SASLprep (RFC 4013) is the identity on printable ASCII, which is all this client prepares;
    /// other passwords go as their UTF-8 bytes, which is also PostgreSQL's fallback. A non-ASCII
    /// password therefore has to be set in NFKC form (README).
    private static func prepare(_ password: String) -> [UInt8] {
        Array(password.utf8)
    }

    /// 18 random bytes as base64: printable, and never a comma.
    static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64.encode((0..<18).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}

extension String {
    /// `replacingOccurrences` without Foundation.
    func replacingEvery(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
