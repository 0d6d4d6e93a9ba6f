import Testing
import TableProtocol
import TodoModel

/// Servers that are not ours, as the real service's answers rewritten the way each one answers
/// (protocol §10.4). Each profile is a layer between the replica and the real service of a
/// `SyncWorld`: the service keeps the data honestly, the layer changes only what the replica sees.
/// The behaviours are those observed in the field (issue 15): nothing here is guessed from the
/// spec alone.
struct ForeignServer: Sendable, CustomTestStringConvertible {
    typealias Service = @Sendable (HTTPRequest) -> HTTPResponse

    let name: String
    /// The `--protocol` of replicas of this server.
    let generation: String
    let answer: @Sendable (HTTPRequest, Service) -> HTTPResponse

    var testDescription: String { name }

    /// This project's own server, unchanged: the outcome every other profile must match.
    static let ours = ForeignServer(name: "todo-server", generation: "mobile-apps") { request, service in service(request) }

    /// azure-mobile-apps-node 4.0.1 (Express, sqlite):
    /// - a duplicate insert gets 409 with the client's own posted body echoed back;
    /// - every answer with a body carries Express's weak `ETag`, a hash of that body, never a version;
    /// - read by id ignores `__includeDeleted`: a soft-deleted row answers 404;
    /// - list pages are capped below `$top` and carry a `Link` that lost its port and path.
    static let node = ForeignServer(name: "node", generation: "mobile-apps") { request, service in
        var response: HTTPResponse
        if request.isReadByID {
            response = service(request)
            if response.status == 200, (try? JSONValue.parse(response.body))?["deleted"] == true {
                response = Scripted.answer(404, ["error": "The item does not exist"])
            }
        } else if request.isInsert {
            response = service(request)
            if response.status == 409 {
                response = HTTPResponse(status: 409, headers: ["Content-Type": "application/json"], body: request.body)
            }
        } else if request.isList {
            response = service(request)
            if response.status == 200, case .array(let rows)? = try? JSONValue.parse(response.body) {
                response.body = JSONValue.array(Array(rows.prefix(nodePageCap))).compactBytes()
                if !rows.isEmpty { response.headers.set(name: "Link", value: "<http://127.0.0.1/?%24top=50&%24skip=50>; rel=next") }
            }
        } else {
            response = service(request)
        }
        response.headers.remove(name: "ETag")
        if !response.body.isEmpty { response.headers.set(name: "ETag", value: expressWeakETag(response.body)) }
        return response
    }

    /// Rows per page the Node profile sends, whatever `$top` asked (Node caps at its page size).
    static let nodePageCap = 2

    /// Azure Mobile Services (G1, the .NET-era and node-era hosted service):
    /// - a PATCH is answered with the patch only (plus system properties);
    /// - a DELETE is answered 204 with no body, an undelete 200;
    /// - a duplicate insert gets 409 with an error object, not the item.
    static let mobileServices = ForeignServer(name: "mobile-services", generation: "mobile-services") { request, service in
        var response = service(request)
        switch request.method {
        case "PATCH" where response.status == 200:
            if let sent = (try? JSONValue.parse(request.body))?.objectValue,
               let whole = (try? JSONValue.parse(response.body))?.objectValue {
                let patch = whole.filter { name, _ in name == "id" || name.hasPrefix("__") || sent[name] != nil }
                response.body = JSONValue.object(patch).compactBytes()
            }
        case "DELETE" where (200...299).contains(response.status):
            response = HTTPResponse(status: 204)
        case "POST" where request.isInsert && response.status == 409:
            response = Scripted.answer(409, ["code": 409, "error": "Error: Could not insert the item because an item with that id already exists."])
        case "POST" where response.status == 201:
            response.status = 200
        default:
            break
        }
        return response
    }

    /// Azure Mobile Apps .NET server (TableController over Entity Framework):
    /// - a failed `If-Match` is 409 with the item, not 412;
    /// - an insert is 200, a delete 204 with no body;
    /// - a duplicate insert gets 409 with an error object;
    /// - dates drop trailing zeros of the fraction (`…:00Z`, `…:00.5Z`).
    static let dotnet = ForeignServer(name: "dotnet", generation: "mobile-apps") { request, service in
        var response = service(request)
        if request.isInsert, response.status == 409 {
            return Scripted.answer(409, ["message": "The operation failed due to a conflict: 'Violation of PRIMARY KEY constraint'."])
        }
        switch response.status {
        case 412: response.status = 409
        case 201: response.status = 200
        default: break
        }
        if request.method == "DELETE", (200...299).contains(response.status) { return HTTPResponse(status: 204) }
        if let json = try? JSONValue.parse(response.body) { response.body = trimmingDates(json).compactBytes() }
        return response
    }

    static let all: [ForeignServer] = [.ours, .node, .mobileServices, .dotnet]
    static let others: [ForeignServer] = [.node, .mobileServices, .dotnet]

    // MARK: Pieces

    /// `W/"<length in hex>-<27 characters>"`, the shape of Express's default ETag.
    static func expressWeakETag(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        var h = hash
        for _ in 0..<27 {
            text.append(alphabet[Int(h & 63)])
            h = (h >> 6) | (h << 58)
            h = h &* 0x9e37_79b9_7f4a_7c15
        }
        return "W/\"\(String(body.count, radix: 16))-\(text)\""
    }

    /// .NET's date text: the fraction's trailing zeros dropped, and the dot with them.
    static func trimmingDates(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let rows): return .array(rows.map(trimmingDates))
        case .object(var o):
            for name in ["createdAt", "updatedAt"] {
                guard let text = o[name]?.stringValue, let dot = text.firstIndex(of: "."), text.hasSuffix("Z") else { continue }
                var fraction = text[text.index(after: dot)..<text.index(before: text.endIndex)]
                while fraction.hasSuffix("0") { fraction.removeLast() }
                o[name] = .string(String(text[..<dot]) + (fraction.isEmpty ? "" : "." + fraction) + "Z")
            }
            return .object(o)
        default: return value
        }
    }
}

extension HTTPRequest {
    /// `POST /tables/T` (an insert, not an undelete).
    var isInsert: Bool { method == "POST" && path.split(separator: "/").count == 2 }
    /// `GET /tables/T/id`.
    var isReadByID: Bool { method == "GET" && path.split(separator: "/").count == 3 }
    /// `GET /tables/T`.
    var isList: Bool { method == "GET" && path.split(separator: "/").count == 2 }
}
