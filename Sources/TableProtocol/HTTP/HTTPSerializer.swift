/// Turns messages into HTTP/1.1 bytes.
///
/// The serializer owns framing: any `Content-Length` or `Transfer-Encoding` in the given headers is
/// dropped and the right `Content-Length` written instead, so a caller cannot produce a body that
/// disagrees with its length. CR, LF and NUL in header values become spaces, so no value can inject
/// a header line.
public enum HTTPSerializer {
    /// The interim answer to `Expect: 100-continue`.
    public static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Status line, `Content-Length` (omitted for 1xx, 204 and 304, which never have a body), the
    /// headers in order, the empty line, the body. Always `HTTP/1.1`: a server answers 1.0 clients
    /// with its own version (RFC 9110 §6.2). Responses are never chunked.
    public static func serialize(_ response: HTTPResponse) -> [UInt8] {
        var bytes: [UInt8] = []
        append(response, to: &bytes)
        return bytes
    }

    /// Appends one response, so a server can gather the answers to pipelined requests into one write.
    public static func append(_ response: HTTPResponse, to bytes: inout [UInt8]) {
        let hasBody = !HTTPResponse.statusForbidsBody(response.status)
        let needed = bytes.count + 128 + response.headers.count * 48 + (hasBody ? response.body.count : 0)
        // At least doubling: `reserveCapacity` grows to exactly what is asked, so reserving for each
        // of the pipelined answers gathered into one buffer copied the whole buffer every time.
        if bytes.capacity < needed { bytes.reserveCapacity(max(needed, 2 * bytes.capacity)) }
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        bytes.append(contentsOf: String(response.status).utf8)
        bytes.append(HTTPSyntax.space)
        appendValue(response.reason, to: &bytes)
        appendLineEnd(to: &bytes)
        if hasBody {
            appendField("Content-Length", String(response.body.count), to: &bytes)
        }
        appendHeaders(response.headers, to: &bytes)
        appendLineEnd(to: &bytes)
        if hasBody { bytes.append(contentsOf: response.body) }
    }

    /// Request line, `Host` (from `host` when the headers have none), the headers in order,
    /// `Content-Length` when there is a body or the method normally carries one, the body.
    public static func serialize(_ request: HTTPRequest, host: String? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + request.target.utf8.count + request.headers.count * 48 + request.body.count)
        bytes.append(contentsOf: request.method.utf8)
        bytes.append(HTTPSyntax.space)
        bytes.append(contentsOf: request.target.utf8)
        bytes.append(HTTPSyntax.space)
        bytes.append(contentsOf: request.version.description.utf8)
        appendLineEnd(to: &bytes)
        if let host, !request.headers.contains(name: "Host") {
            appendField("Host", host, to: &bytes)
        }
        appendHeaders(request.headers, to: &bytes)
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            appendField("Content-Length", String(request.body.count), to: &bytes)
        }
        appendLineEnd(to: &bytes)
        bytes.append(contentsOf: request.body)
        return bytes
    }

    // MARK: - Pieces

    private static func appendHeaders(_ headers: HTTPHeaders, to bytes: inout [UInt8]) {
        for field in headers {
            if HTTPSyntax.equalsIgnoringCase(field.name, "Content-Length")
                || HTTPSyntax.equalsIgnoringCase(field.name, "Transfer-Encoding") {
                continue
            }
            appendField(field.name, field.value, to: &bytes)
        }
    }

    private static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(HTTPSyntax.colon)
        bytes.append(HTTPSyntax.space)
        appendValue(value, to: &bytes)
        appendLineEnd(to: &bytes)
    }

    private static func appendValue(_ value: String, to bytes: inout [UInt8]) {
        let isUnsafe = { (byte: UInt8) in byte == HTTPSyntax.cr || byte == HTTPSyntax.lf || byte == 0 }
        // On the contiguous bytes: walking `String.UTF8View` cost more than the rest of a response.
        var value = value
        value.withUTF8 { utf8 in
            guard utf8.contains(where: isUnsafe) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 { bytes.append(isUnsafe(byte) ? HTTPSyntax.space : byte) }
        }
    }

    @inline(__always)
    private static func appendLineEnd(to bytes: inout [UInt8]) {
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
    }
}
