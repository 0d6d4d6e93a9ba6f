#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
@testable import PostgresClient

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

private func bytes(hex text: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = Array(text.utf8)[...]
    while chars.count >= 2 {
        out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16)!)
        chars = chars.dropFirst(2)
    }
    return out
}

/// The primitives under SCRAM, each against its published test vectors.
@Suite struct CryptoTests {
    /// FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA2_Additional.pdf").
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func sha256MatchesNISTExamples(message: String, digest: String) {
        #expect(hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    /// RFC 4231 §4.2–4.8, test cases 1–7 (case 5 is truncated to 128 bits by the RFC).
    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8),
         "a3b6167473100ee06e0c796c2955552b"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([UInt8](repeating: 0xaa, count: 131),
         Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func hmacMatchesRFC4231(key: [UInt8], data: [UInt8], mac: String) {
        let full = hex(HMACSHA256.authenticate(data, key: key))
        #expect(full.hasPrefix(mac))
    }

    /// RFC 7914 §11 (PBKDF2-HMAC-SHA256, two output blocks), and the widely used
    /// "password"/"salt" vectors for c = 1, 2, 4096.
    @Test(arguments: [
        ("passwd", "salt", 1, 64,
         "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"),
        ("password", "salt", 1, 32, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"),
        ("password", "salt", 2, 32, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"),
        ("password", "salt", 4096, 32, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
    ])
    func pbkdf2MatchesPublishedVectors(password: String, salt: String, iterations: Int, length: Int, key: String) {
        #expect(hex(PBKDF2.sha256(password: Array(password.utf8), salt: Array(salt.utf8),
                                  iterations: iterations, length: length)) == key)
    }
}

/// The SCRAM-SHA-256 client against RFC 7677 §3's example exchange (user "user", password "pencil").
@Suite struct SCRAMTests {
    let serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    let client = SCRAMClient(user: "user", password: "pencil", nonce: "rOprNGfwEbeRWgbNEkqO")

    @Test func clientProofAndServerSignatureMatchRFC7677() throws {
        #expect(client.clientFirstMessage == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
        let reply = try client.reply(toServerFirst: serverFirst)
        #expect(reply.clientFinalMessage
                == "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        try SCRAMClient.verify(serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
                               expected: reply.expectedServerSignature)
    }

    @Test func aWrongServerSignatureIsRefused() throws {
        let reply = try client.reply(toServerFirst: serverFirst)
        let wrong = #expect(throws: PostgresError.self) {
            try SCRAMClient.verify(serverFinal: "v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
                                   expected: reply.expectedServerSignature)
        }
        #expect(Self.authenticationFailure(wrong)
                == "SCRAM: the server's signature is wrong, so it does not know the password: it may not be the server you meant")
        let refused = #expect(throws: PostgresError.self) {
            try SCRAMClient.verify(serverFinal: "e=invalid-proof", expected: reply.expectedServerSignature)
        }
        #expect(Self.authenticationFailure(refused) == "SCRAM: the server refused the proof (invalid-proof)")
    }

    @Test func aServerNonceThatDoesNotExtendOursIsRefused() {
        let nonce = "SCRAM: the server's nonce does not extend ours; refusing to authenticate"
        let other = #expect(throws: PostgresError.self) {
            try client.reply(toServerFirst: "r=someoneElsesNonce,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
        }
        #expect(Self.protocolViolation(other) == nonce)
        let same = #expect(throws: PostgresError.self) {
            try client.reply(toServerFirst: "r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
        }
        #expect(Self.protocolViolation(same) == nonce)
    }

    /// The message of an `.authenticationFailed`, or nil for any other error (or none).
    static func authenticationFailure(_ error: PostgresError?) -> String? {
        if case .authenticationFailed(let message)? = error { return message }
        return nil
    }

    /// The message of a `.protocolViolation`, or nil for any other error (or none).
    static func protocolViolation(_ error: PostgresError?) -> String? {
        if case .protocolViolation(let message)? = error { return message }
        return nil
    }

    @Test func noncesAreFreshAndCommaFree() {
        let a = SCRAMClient.makeNonce(), b = SCRAMClient.makeNonce()
        #expect(a != b)
        #expect(a.count == 24 && !a.contains(","))
    }
}
