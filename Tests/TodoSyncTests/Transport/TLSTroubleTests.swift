import Testing
@testable import TodoSync

/// What a TLS library's text says went wrong (`TLSTrouble`), one row a kind of text, as OpenSSL
/// (`TLSStream`) and libcurl (the https helper) word them.
@Suite struct TLSTroubleTests {
    static let rows: [(String, TLSTrouble)] = [
        ("certificate verify failed: Hostname mismatch", .wrongHost),
        ("SSL: no alternative certificate subject name matches target host name '127.0.0.1'", .wrongHost),
        ("certificate verify failed: certificate has expired", .outOfDates),
        ("SSL certificate problem: self-signed certificate", .untrusted(detail: "self-signed certificate")),
        ("SSL certificate problem: unable to get local issuer certificate", .untrusted(detail: "unable to get local issuer certificate")),
        ("error setting certificate file: /x.pem", .unusableCAFile(reason: "error setting certificate file: /x.pem")),
        ("cannot load the CA file /x.pem: no certificate in it", .unusableCAFile(reason: "cannot load the CA file /x.pem: no certificate in it")),
        ("error:0A00010B:SSL routines::wrong version number", .notTLS),
        ("error:0A0000C6:SSL routines::packet length too long", .notTLS),
        ("no TLS handshake within 2 s", .other(reason: "no TLS handshake within 2 s")),
    ]

    @Test("each text's trouble", arguments: rows) func trouble(_ text: String, _ trouble: TLSTrouble) {
        #expect(TLSTrouble(reason: text) == trouble)
        #expect(TransportFailure.tlsFailed(reason: text).tlsTrouble == trouble)
    }

    @Test func onlyATLSFailureHasATrouble() {
        #expect(TransportFailure.cannotConnect(endpoint: "127.0.0.1:9", reason: "Connection refused").tlsTrouble == nil)
    }
}
