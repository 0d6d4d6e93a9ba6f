import TodoBasics
import TodoModel

/// One writer thread of a `SnapshotReadWorkload`: a seeded mix of writes, every answer recorded.
struct SnapshotWriter {
    let run: SnapshotRun
    /// -1 for the setup writer.
    let index: Int
    let send: WireSend

    private var table: String { run.configuration.table }
    private static let g2 = [("ZUMO-API-VERSION", "2.0.0")]

    /// The rows every reader starts from.
    func seed() throws {
        for i in 0..<run.configuration.initialRows {
            let n = run.unique()
            let id = "r\(i)"
            let body = #"{"id":"\#(id)","text":"t\#(n)","priority":\#(n),"k":\#(n)}"#
            let reply = try send(WireRequest("POST", "/tables/\(table)", headers: Self.g2, body: body))
            guard record(reply, request: "POST /tables/\(table)", table: table, accepted: [201]) else {
                throw SetupFailure(description: "insert of \(id) answered \(reply.status) \(reply.text)")
            }
            run.learn(table: table, id: id, version: reply.json?["version"]?.stringValue, isNew: true)
        }
    }

    struct SetupFailure: Error, CustomStringConvertible { var description: String }

    private enum Kind: CaseIterable {
        case newField, update, insert, delete, undelete, stalePatch, dynamicTable, badInsert

        /// Out of 100. Most writes add a column: the write a torn read loses half of.
        var weight: Int {
            switch self {
            case .newField: 35
            case .update: 13
            case .insert: 10
            case .delete: 10
            case .undelete: 10
            case .stalePatch: 8
            case .dynamicTable: 9
            case .badInsert: 5
            }
        }
    }

    func work() {
        var rng = SplitMix64(seed: run.seed &* 1_000_003 &+ UInt64(index + 1))
        for step in 0..<run.configuration.writesPerWriter {
            var pick = Int.random(in: 0..<100, using: &rng)
            var kind = Kind.newField
            for candidate in Kind.allCases {
                if pick < candidate.weight { kind = candidate; break }
                pick -= candidate.weight
            }
            do {
                try write(kind, step: step, &rng)
            } catch {
                run.fail("writer \(index): \(kind): \(error)")
                return
            }
        }
    }

    private func write(_ kind: Kind, step: Int, _ rng: inout SplitMix64) throws {
        let n = run.unique()
        switch kind {
        case .newField, .update, .stalePatch:
            guard let id = run.randomID(table, &rng) else { return }
            let body = kind == .update ? #"{"text":"t\#(n)","priority":\#(n)}"# : #"{"k":\#(n),"c\#(n)":\#(n)}"#
            var headers = Self.g2
            if kind == .stalePatch {
                // A version the row once had, often no longer current: then 412 with the row.
                headers.append(("If-Match", "\"\(run.someVersion(table, id, &rng) ?? "AAAAAAAAAAA=")\""))
            }
            try exchange(WireRequest("PATCH", "/tables/\(table)/\(id)", headers: headers, body: body), table: table,
                         accepted: [200, 404, 412])
        case .insert:
            let id = "w\(index)-\(step)"
            let body = #"{"id":"\#(id)","text":"t\#(n)","k":\#(n),"c\#(n)":\#(n)}"#
            try exchange(WireRequest("POST", "/tables/\(table)", headers: Self.g2, body: body), table: table,
                         accepted: [201], newID: id)
        case .delete:
            guard let id = run.randomID(table, &rng) else { return }
            try exchange(WireRequest("DELETE", "/tables/\(table)/\(id)", headers: Self.g2), table: table,
                         accepted: [200, 404])
        case .undelete:
            guard let id = run.randomID(table, &rng) else { return }
            try exchange(WireRequest("POST", "/tables/\(table)/\(id)", headers: Self.g2), table: table, accepted: [201])
        case .dynamicTable:
            guard let extra = run.configuration.dynamicTable else { return }
            if Bool.random(using: &rng), let id = run.randomID(extra, &rng) {
                try exchange(WireRequest("PATCH", "/tables/\(extra)/\(id)", headers: Self.g2,
                                         body: #"{"k":\#(n),"c\#(n)":\#(n)}"#), table: extra, accepted: [200])
            } else {
                let id = "x\(index)-\(step)"
                try exchange(WireRequest("POST", "/tables/\(extra)", headers: Self.g2,
                                         body: #"{"id":"\#(id)","k":\#(n),"c\#(n)":\#(n)}"#),
                             table: extra, accepted: [201], newID: id)
            }
        case .badInsert:
            // Not an object: a 400 (or 404 without dynamic tables) that must leave no table behind.
            let absent = run.configuration.absentTable
            let reply = try send(WireRequest("POST", "/tables/\(absent)", headers: Self.g2, body: "[\(n)]"))
            if reply.status != 400 && reply.status != 404 {
                run.fail("POST /tables/\(absent) with a body that is not an object answered \(reply.status) \(reply.text)")
            }
        }
    }

    /// Sends a write, checks its status, records the row it answers with.
    private func exchange(_ request: WireRequest, table: String, accepted: Set<Int>, newID: String? = nil) throws {
        let reply = try send(request)
        guard record(reply, request: request.line, table: table, accepted: accepted) else { return }
        if reply.status / 100 == 2, let row = reply.json, let id = row["id"]?.stringValue {
            run.learn(table: table, id: id, version: row["version"]?.stringValue, isNew: newID != nil)
        }
    }

    /// Records a 2xx answer as a write and a 409/412 body as a conflict read; false when the status
    /// was not one of `accepted`.
    private func record(_ reply: WireReply, request: String, table: String, accepted: Set<Int>) -> Bool {
        guard accepted.contains(reply.status) else {
            run.fail("\(request) answered \(reply.status) \(reply.text)")
            return false
        }
        let source: SnapshotLedger.Source
        switch reply.status {
        case 200..<300: source = .write
        case 409, 412: source = .conflict
        default: return true
        }
        guard let row = reply.json?.objectValue else {
            run.fail("\(request) answered \(reply.status) without an item: \(reply.text)")
            return false
        }
        if let etag = reply.header("ETag"), etag != "\"\(row["version"]?.stringValue ?? "")\"" {
            run.fail("\(request): ETag \(etag) is not the version of the item it answers with: \(reply.text)")
        }
        run.count(source)
        run.ledger.record(source, request: request, table: table, rows: [row])
        return true
    }
}
