import Synchronization
import TableProtocol
import TodoBasics
import TodoModel
import TodoTestSupport
@testable import TodoServer

/// A table that the test serves itself: the "scripted server" of sync.md §12 for the pull
/// scenarios that no correct server can produce (shared timestamps, hidden precision, `deleted`
/// sent as null, ids spelled in another case).
///
/// It answers list requests (`GET /tables/<name>`) from `rows` with the real OData evaluator, so
/// a cursor filter, `$orderby`, `$skip` and `$top` mean what they mean on a server. Rows are
/// compared at their stored instant (7 digits), but their `updatedAt` text is written with
/// `sentDigits` fractional digits: 3 hides sub-millisecond differences, as Node on SQL Server does.
final class ScriptedTable: Sendable {
    struct Row: Sendable {
        var id: String
        var updatedAt: WireInstant
        var fields: [String: JSONValue] = [:]
        /// The `deleted` member as sent: true, false, null, or absent (nil).
        var deleted: JSONValue? = false
        var version: String

        init(id: String, updatedAt: WireInstant, fields: [String: JSONValue] = [:], deleted: JSONValue? = false, version: String? = nil) {
            self.id = id
            self.updatedAt = updatedAt
            self.fields = fields
            self.deleted = deleted
            self.version = version ?? "v-\(id)-\(updatedAt.ticks)"
        }
    }

    let name: String
    let rows: Mutex<[Row]>
    let sentDigits: Int
    /// A `Link` header sent with every non-empty page (scenario 58), or nil.
    let link: String?
    /// A runaway pull is answered 400 after this many list requests, so a loop fails the test
    /// instead of hanging it.
    let requestLimit: Int
    /// Query options this table acts as if it never received (`$filter`, `$orderby`, `$top`,
    /// `$skip`): a server or proxy that drops them (issue 15 item 4). Without `$orderby` the rows
    /// come in the order of `rows`.
    let ignoring: Set<String>
    private let served = Mutex(0)

    init(name: String = "todoitem", rows: [Row], sentDigits: Int = 3, link: String? = nil, requestLimit: Int = 200,
         ignoring: Set<String> = []) {
        self.name = name
        self.rows = Mutex(rows)
        self.sentDigits = sentDigits
        self.link = link
        self.requestLimit = requestLimit
        self.ignoring = ignoring
    }

    /// List requests answered so far.
    var requestCount: Int { served.withLock { $0 } }

    /// Milliseconds after the harness epoch, as an instant; `ticks` adds sub-millisecond time.
    static func instant(_ millisecond: Int64, ticks: Int64 = 0) -> WireInstant {
        WireInstant(ticks: WireInstant(milliseconds: 1_714_554_000_000 + millisecond).ticks + ticks)
    }

    /// The updatedAt text this table sends for an instant.
    func text(_ instant: WireInstant) -> String { sentDigits == 7 ? instant.sevenDigitText : instant.wireText }

    /// The answer to a list request of this table, or nil for any other request.
    func answer(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET", let target = try? HTTPRequestTarget(parsing: request.target),
              target.segments.count == 2, target.segments[0] == "tables", target.segments[1].lowercased() == name.lowercased()
        else { return nil }
        let count = served.withLock { n -> Int in n += 1; return n }
        guard count <= requestLimit else { return Self.error(400, "scripted table: too many requests") }
        func value(_ name: String) -> String? { ignoring.contains(name) ? nil : target.queryValues(for: name).first }
        let filter: FilterExpression?
        let order: OrderBy?
        do {
            filter = try value("$filter").map { text throws(ODataQueryError) in try ODataQueryOptions.parseFilter(text) }
            order = ignoring.contains("$orderby") ? nil
                : try (value("$orderby").map { text throws(ODataQueryError) in try OrderBy.parse(text) } ?? .byID).withIDTieBreak
        } catch {
            return Self.error(400, "\(error)")
        }
        let top = value("$top").flatMap { Int($0) } ?? (ignoring.contains("$top") ? Int.max : 50)
        let skip = value("$skip").flatMap { Int($0) } ?? 0
        let selected = rows.withLock { $0 }.filter { row in filter.map { $0.matches(Self.filterRow(row)) } ?? true }
        let sorted = order.map { order in
            selected.map { ($0, order.keyValues(of: Self.filterRow($0))) }.sorted { order.compare($0.1, $1.1) < 0 }.map(\.0)
        } ?? selected
        let page = sorted.dropFirst(skip).prefix(top)
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let link, !page.isEmpty { headers.add(name: "Link", value: link) }
        return HTTPResponse(status: 200, headers: headers, body: JSONValue.array(page.map(json)).compactBytes())
    }

    func json(_ row: Row) -> JSONValue {
        var o = row.fields
        o["id"] = .string(row.id)
        o["updatedAt"] = .string(text(row.updatedAt))
        o["createdAt"] = .string(text(row.updatedAt))
        o["version"] = .string(row.version)
        if let deleted = row.deleted { o["deleted"] = deleted }
        return .object(o)
    }

    static func filterRow(_ row: Row) -> FilterRowFunction {
        FilterRowFunction { member in
            switch member {
            case .id: .string(row.id)
            case .system(.updatedAt), .system(.createdAt): .date(row.updatedAt)
            case .system(.version): .string(row.version)
            case .system(.deleted): .bool(row.deleted == .bool(true))
            case .column(let name): FilterValue(row.fields[name] ?? .null)
            }
        }
    }

    /// Scenario 50's server: 400 to any `$filter` that mentions `id`; the real service otherwise.
    static let refusingIDFilters: SyncWorld.Script = { request, service in
        let filter = (try? HTTPRequestTarget(parsing: request.target))?.queryValues(for: "$filter").first
        if request.method == "GET", let filter, filter.contains("id ") { return error(400, "cannot filter on id") }
        return service(request)
    }

    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"],
                     body: JSONValue.object(["error": .string(message)]).compactBytes())
    }
}

extension SyncWorld {
    /// Serves `table`'s list requests from the script; every other request goes to the real service.
    func serve(_ table: ScriptedTable) {
        script { request, service in table.answer(request) ?? service(request) }
    }

    /// `count` rows `<prefix>000`, `<prefix>001`… with text "row N", written in one server commit
    /// (one fsync), each with its own version and a strictly later updatedAt than the one before.
    func seed(_ count: Int, prefix: String = "r", table: String = "todoitem", fields: (Int) -> [String: JSONValue] = { _ in [:] }) throws {
        try storage.write(table) { w in
            for i in 0..<count {
                let (version, updatedAt) = w.nextStamp()
                var columns: [String: JSONValue] = ["text": .string("row \(i)"), "complete": false]
                columns.merge(fields(i)) { $1 }
                w.put(StoredRow(id: Self.seededID(prefix, i), columns: columns, createdAt: updatedAt,
                                updatedAt: updatedAt, version: version))
            }
        }
    }

    static func seededID(_ prefix: String, _ i: Int) -> String {
        let digits = String(i)
        return prefix + String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    /// List requests (pull pages) of the log.
    func pages(table: String = "todoitem") -> [Exchange] {
        requests().filter { $0.method == "GET" && $0.path.lowercased() == "/tables/\(table.lowercased())" }
    }
}

extension SyncWorld.Exchange {
    /// The decoded value of a query parameter, or nil.
    func query(_ name: String) -> String? {
        (try? HTTPRequestTarget(parsing: target))?.queryValues(for: name).first
    }

    /// The one-row query of protocol §10.3 that fetches the server copy of `id`.
    func isServerCopyQuery(for id: String, table: String = "todoitem") -> Bool {
        method == "GET" && path == "/tables/\(table)" && query("$filter") == "id eq '\(id)'" && query("__includeDeleted") == "true"
    }
}

extension CLIHarness {
    /// `.todo/tables/<table>/table.json`, parsed.
    func tableConfig(_ table: String = "todoitem") -> JSONValue? {
        let path = directory.appendingPath(".todo/tables/\(table)/table.json")
        return ((try? LocalFileSystem().readFile(path)) ?? nil).flatMap { try? JSONValue.parse($0) }
    }

    /// The stored token of a query, as `{"id", "updatedAt"}`, or nil.
    func token(_ query: String = "default", table: String = "todoitem") -> JSONValue? {
        tableConfig(table)?["queries"]?[query]?["token"]
    }

    /// Ids of the local items of a table, sorted.
    func itemIDs(_ table: String = "todoitem") -> [String] {
        records("tables/\(table)/items").compactMap { $0["id"]?.stringValue }.sorted()
    }

    /// Every file under `.todo` (lock, journal and the derived `cache` aside) and its bytes, for
    /// "nothing changed". (The cache holds stat stamps, which differ from copy to copy.)
    func storeFiles() -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let fs = LocalFileSystem()
        func walk(_ relative: String) {
            if relative == "cache" { return }
            let path = directory.appendingPath(".todo").appendingPath(relative)
            if fs.isDirectory(path) {
                for name in (try? fs.listDirectory(path)) ?? [] { walk(relative.isEmpty ? name : relative + "/" + name) }
            } else if relative != "lock" {
                files[relative] = (try? fs.readFile(path)) ?? nil
            }
        }
        walk("")
        return files
    }
}
