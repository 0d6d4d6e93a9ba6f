import TodoBasics

/// HMAC-SHA-256 (RFC 2104) over the project's SHA-256: SCRAM's keyed hash.
///
/// The padded keys are made once per key, so PBKDF2's thousands of rounds with one password
/// only hash.
struct HMACSHA256 {
    static let blockSize = 64
    private let innerPad: [UInt8]
    private let outerPad: [UInt8]

    init(key: [UInt8]) {
        var block = key.count > Self.blockSize ? SHA256.hash(key) : key
        block.append(contentsOf: repeatElement(0, count: Self.blockSize - block.count))
        innerPad = block.map { $0 ^ 0x36 }
        outerPad = block.map { $0 ^ 0x5c }
    }

    func authenticate(_ message: [UInt8]) -> [UInt8] {
        SHA256.hash(outerPad + SHA256.hash(innerPad + message))
    }

    static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        HMACSHA256(key: key).authenticate(message)
    }
}

/// PBKDF2 with HMAC-SHA-256 as its pseudorandom function (RFC 8018 §5.2): SCRAM's salted password.
enum PBKDF2 {
    static func sha256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        precondition(iterations >= 1 && length >= 1, "PBKDF2 needs at least one iteration and one byte")
        let prf = HMACSHA256(key: password)
        var derived: [UInt8] = []
        var blockIndex: UInt32 = 1
        while derived.count < length {
            let indexBytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: blockIndex >> UInt32($0)) }
            var u = prf.authenticate(salt + indexBytes)
            var block = u
            for _ in 1..<iterations {
                u = prf.authenticate(u)
                for i in 0..<block.count { block[i] ^= u[i] }
            }
            derived += block
            blockIndex += 1
        }
        return Array(derived.prefix(length))
    }
}
