#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TableProtocol
import TodoSync

/// Performs one request at a time with libcurl's easy interface, trusting the CA file given with
/// `--ca-file` instead of the system's store (`todo remote set --ca-file`, as git's
/// `http.sslCAInfo`).
///
/// Why not URLSession: on Linux, FoundationNetworking gives libcurl the system's CA file and no
/// way to choose another (its `URLSessionCertificateAuthorityInfoFile` variable is read on Android
/// only; libcurl itself reads neither `SSL_CERT_FILE` nor `CURL_CA_BUNDLE`). libcurl is already
/// loaded by FoundationNetworking, so it is opened by name, not linked: the package stays free of
/// system library targets. One easy handle, reset per request, keeps its connection and TLS
/// session between requests. Redirects are never followed (libcurl's default): the 3xx comes back.
final class CurlClient {
    private let origin: String
    private let caFile: String
    private let timeouts: TransportTimeouts
    private let curl: LibCurl
    private let handle: OpaquePointer

    /// Throws when libcurl cannot be opened or started.
    init(_ invocation: RemoteHelperProtocol.Invocation, caFile: String) throws(LibCurl.Missing) {
        origin = "\(invocation.endpoint.scheme.rawValue)://\(invocation.endpoint.hostHeader)"
        self.caFile = caFile
        timeouts = invocation.timeouts
        curl = try LibCurl.open()
        _ = curl.globalInit(3)  // CURL_GLOBAL_ALL
        guard let handle = curl.easyInit() else { throw LibCurl.Missing(reason: "curl_easy_init failed") }
        self.handle = handle
    }

    /// Headers that are the connection's business (libcurl frames the request itself).
    private static let hopByHop: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade",
        "proxy-connection", "expect",
    ]

    func perform(_ request: HTTPRequest) -> HTTPResponse {
        curl.easyReset(handle)
        let received = Received()
        let box = Unmanaged.passRetained(received)
        defer { box.release() }
        var errorText = [CChar](repeating: 0, count: 256)
        var list: OpaquePointer? = nil
        for header in request.headers where !Self.hopByHop.contains(header.name.lowercased()) {
            list = curl.slistAppend(list, "\(header.name): \(header.value)")
        }
        // No "Expect: 100-continue" wait, and no form Content-Type libcurl would add to a body.
        list = curl.slistAppend(list, "Expect:")
        if request.headers["Content-Type"] == nil { list = curl.slistAppend(list, "Content-Type:") }
        defer { curl.slistFreeAll(list) }
        let body = request.body
        let code: Int32 = errorText.withUnsafeMutableBufferPointer { errorBuffer in
            body.withUnsafeBufferPointer { bodyBytes in
                set(.url, string: origin + request.target)
                set(.caInfo, string: caFile)
                set(.protocolsString, string: "http,https")
                set(.customRequest, string: request.method)
                curl.setPointer(handle, Option.errorBuffer.rawValue, UnsafeRawPointer(errorBuffer.baseAddress))
                curl.setPointer(handle, Option.httpHeader.rawValue, UnsafeRawPointer(list))
                curl.setLong(handle, Option.noSignal.rawValue, 1)
                curl.setLong(handle, Option.connectTimeoutMS.rawValue, Int(timeouts.connect * 1000))
                curl.setLong(handle, Option.timeoutMS.rawValue, Int((timeouts.connect + timeouts.request) * 1000))
                if request.method == "HEAD" {
                    curl.setLong(handle, Option.noBody.rawValue, 1)
                } else if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
                    // Copied by libcurl, so an empty body needs no pointer that outlives this call.
                    curl.setLong(handle, Option.postFieldSizeLarge.rawValue, body.count)
                    if let bytes = bodyBytes.baseAddress {
                        curl.setPointer(handle, Option.copyPostFields.rawValue, UnsafeRawPointer(bytes))
                    } else {
                        set(.copyPostFields, string: "")
                    }
                }
                curl.setPointer(handle, Option.writeData.rawValue, UnsafeRawPointer(box.toOpaque()))
                curl.setPointer(handle, Option.headerData.rawValue, UnsafeRawPointer(box.toOpaque()))
                curl.setCallback(handle, Option.writeFunction.rawValue, Received.body)
                curl.setCallback(handle, Option.headerFunction.rawValue, Received.header)
                return curl.easyPerform(handle)
            }
        }
        guard code == 0 else {
            let text = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let reason = text.isEmpty ? (curl.easyStrError(code).map { String(cString: $0) } ?? "libcurl error \(code)") : text
            return RemoteHelperProtocol.response(for: Self.failure(code: code, reason: reason))
        }
        var status = 0
        curl.getLong(handle, 0x200002, &status)  // CURLINFO_RESPONSE_CODE
        var headers = HTTPHeaders()
        for (name, value) in received.headers {
            let lower = name.lowercased()
            if Self.hopByHop.contains(lower) || lower == RemoteHelperProtocol.failureHeader.lowercased() { continue }
            headers.add(name: name, value: value)
        }
        return HTTPResponse(status: status, headers: headers, body: received.body)
    }

    private func set(_ option: Option, string: String) {
        _ = string.withCString { curl.setPointer(handle, option.rawValue, UnsafeRawPointer($0)) }
    }

    /// libcurl's result as a transport failure; the codes are libcurl's documented `CURLcode`s.
    static func failure(code: Int32, reason: String) -> TransportFailure {
        switch code {
        case 1, 3: .connectionLost(reason: reason, requestSent: false)  // unsupported protocol, bad URL
        case 5, 6: .cannotResolve(host: "", reason: reason)
        case 7: .cannotConnect(endpoint: "", reason: reason)
        case 28: .timedOut(seconds: 0, requestSent: true)
        case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98:
            .tlsFailed(reason: reason)
        case 52: .connectionLost(reason: "the server closed the connection without answering", requestSent: true)
        case 8: .badResponse(reason: reason)
        default: .connectionLost(reason: reason, requestSent: true)
        }
    }

    /// The `CURLoption` numbers used (stable ABI: type base + number, from curl.h).
    enum Option: Int32 {
        case writeData = 10001, url = 10002, errorBuffer = 10010, httpHeader = 10023, copyPostFields = 10165
        case headerData = 10029, customRequest = 10036, caInfo = 10065, protocolsString = 10318
        case noBody = 44, noSignal = 99, timeoutMS = 155, connectTimeoutMS = 156
        case writeFunction = 20011, headerFunction = 20079, postFieldSizeLarge = 30120
    }

    /// The response as libcurl hands it over. A new status line starts the headers again (a 100
    /// Continue comes before the real answer).
    final class Received {
        var headers: [(String, String)] = []
        var body: [UInt8] = []

        static let body: LibCurl.Callback = { data, size, count, user in
            let received = Unmanaged<Received>.fromOpaque(user!).takeUnretainedValue()
            let total = size * count
            if let data, total > 0 {
                received.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: total))
            }
            return total
        }

        static let header: LibCurl.Callback = { data, size, count, user in
            let received = Unmanaged<Received>.fromOpaque(user!).takeUnretainedValue()
            let total = size * count
            guard let data, total > 0 else { return total }
            var line = String(decoding: UnsafeRawBufferPointer(start: data, count: total), as: UTF8.self)
            while line.last == "\n" || line.last == "\r" { line.removeLast() }
            if line.hasPrefix("HTTP/") {
                received.headers = []
                received.body = []
            } else if let colon = line.firstIndex(of: ":") {
                let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
                received.headers.append((String(line[..<colon]), String(value)))
            }
            return total
        }
    }
}
