import TodoBasics
import TodoModel

/// One reader thread of a `SnapshotReadWorkload`: every shape of read the protocol has, each
/// answer checked on its own (status, order, duplicates, counts, `Link`) and its rows recorded
/// for the ledger's version check.
struct SnapshotReader {
    let run: SnapshotRun
    let index: Int
    let send: WireSend

    private var table: String { run.configuration.table }
    private var pageSize: Int { run.configuration.pageSize }

    private enum Kind: CaseIterable {
        case idPage, pull, pullFiltered, sorted, linkPage, counted, selected, byID, generation1, dynamicTable, absentTable
    }

    /// Where the next pull page starts: nil for the first page.
    private struct Cursor { var updatedAt: String; var id: String }

    func work() {
        var rng = SplitMix64(seed: run.seed &* 7_000_003 &+ UInt64(index + 1))
        var cursors: [Cursor?] = [nil]
        var reads = 0
        var finalPass = Kind.allCases[...]
        while true {
            let kind: Kind
            if !run.writersDone || reads < run.configuration.minimumReadsPerReader {
                kind = Kind.allCases.randomElement(using: &rng)!
            } else if let next = finalPass.popFirst() {
                kind = next  // one of each once the writers are done: every shape sees the final table
            } else {
                return
            }
            do {
                try read(kind, &cursors, &rng)
            } catch {
                run.fail("reader \(index): \(kind): \(error)")
                return
            }
            reads += 1
        }
    }

    private func read(_ kind: Kind, _ cursors: inout [Cursor?], _ rng: inout SplitMix64) throws {
        let g2 = [("ZUMO-API-VERSION", "2.0.0")]
        switch kind {
        case .idPage:
            let skip = Bool.random(using: &rng) ? 0 : Int.random(in: 1...20, using: &rng)
            let rows = try page(g2, [("$top", "50"), ("$skip", String(skip))])
            expectOrdered(rows, "ids in ascending order", by: { $0.id.scalarLess($1.id) }, in: "id page")
        case .pull, .pullFiltered:
            // The tail of the (updatedAt, id) index is where every write lands: poll it from the
            // last cursor most of the time, now and then from an earlier one or the start.
            let cursor = Int.random(in: 0..<4, using: &rng) == 0 ? cursors.randomElement(using: &rng)! : cursors.last!
            var filter = cursor.map {
                "(updatedAt gt datetimeoffset'\($0.updatedAt)') or ((updatedAt eq datetimeoffset'\($0.updatedAt)') and "
                    + "(id gt '\($0.id)'))"
            }
            var parameters: [(String, String)] = []
            if kind == .pullFiltered {
                // A residual filter makes the server skip rows while it reads the index.
                filter = "(priority ge 0)" + (filter.map { " and (\($0))" } ?? "")
            }
            if let filter { parameters.append(("$filter", filter)) }
            parameters += [("$orderby", "updatedAt asc,id asc"), ("$top", "50")]
            if kind == .pull { parameters.append(("__includeDeleted", "true")) }
            let rows = try page(g2, parameters)
            expectOrdered(rows, "(updatedAt, id) ascending", by: Self.updateOrder, in: "pull page")
            if let cursor, let first = rows.first, !Self.updateOrder(Cursor(updatedAt: cursor.updatedAt, id: cursor.id), first) {
                run.fail("pull page from (\(cursor.updatedAt), \(cursor.id)) starts at (\(first.updatedAt), \(first.id))")
            }
            if let last = rows.last {
                cursors.append(Cursor(updatedAt: last.updatedAt, id: last.id))
                if cursors.count > 64 { cursors.removeFirst(cursors.count - 64) }
            }
        case .sorted:
            let order = ["k desc", "updatedAt desc", "priority asc", "text desc,k asc"].randomElement(using: &rng)!
            _ = try page(g2, [("$orderby", order), ("$top", "50")])
        case .linkPage:
            let skip = Bool.random(using: &rng) ? 0 : Int.random(in: 1...30, using: &rng)
            _ = try page(g2, skip == 0 ? [] : [("$skip", String(skip))])
        case .counted:
            let skip = Int.random(in: 0...40, using: &rng)
            let top = Bool.random(using: &rng) ? nil : Int.random(in: 0...60, using: &rng)
            var parameters = [("$inlinecount", "allpages"), ("$skip", String(skip))]
            if let top { parameters.append(("$top", String(top))) }
            if Bool.random(using: &rng) { parameters.append(("$orderby", "updatedAt desc")) }
            _ = try page(g2, parameters)
        case .selected:
            // A column that may exist yet or not (then the answer is empty, §8.5).
            let column = "c\(Int.random(in: 1...max(1, run.numbersUsed), using: &rng))"
            let names = ["id", "k", "version", "text", column]
            _ = try page(g2, [("$select", names.joined(separator: ",")), ("$orderby", "updatedAt desc"), ("$top", "50")],
                         select: names)
        case .byID:
            guard let id = run.randomID(table, &rng) else { return }
            let target = "/tables/\(table)/\(id)?__includeDeleted=true"
            let reply = try send(WireRequest("GET", target, headers: g2))
            guard expect(reply, [200], target), let row = reply.json?.objectValue else { return }
            run.count(.read)
            run.ledger.record(.read, request: "GET \(target)", table: table, rows: [row])
        case .generation1:
            _ = try page([], [("$top", "50"), ("__systemproperties", "*"), ("$orderby", "__updatedAt desc"),
                              ("__includeDeleted", "true")])
        case .dynamicTable:
            guard let extra = run.configuration.dynamicTable else { return }
            // The table exists once its first insert committed, and then holds that row (a soft
            // delete keeps it): never an empty table, whatever the moment.
            let target = "/tables/\(extra)?__includeDeleted=true&%24top=50"
            let reply = try send(WireRequest("GET", target, headers: g2))
            guard reply.status != 404 else { return }
            guard expect(reply, [200], target), let rows = reply.json?.arrayValue?.compactMap(\.objectValue) else { return }
            if rows.isEmpty { run.fail("GET \(target): the table exists but holds no row: it was visible before the insert that created it") }
            run.count(.read)
            run.ledger.record(.read, request: "GET \(target)", table: extra, rows: rows)
        case .absentTable:
            let target = "/tables/\(run.configuration.absentTable)"
            let reply = try send(WireRequest("GET", target, headers: g2))
            if reply.status != 404 {
                run.fail("GET \(target) answered \(reply.status) \(reply.text): only failed inserts went to that table")
            }
        }
    }

    private struct Row { var id: String; var updatedAt: String }

    private static func updateOrder(_ a: Cursor, _ b: Row) -> Bool {
        a.updatedAt != b.updatedAt ? a.updatedAt < b.updatedAt : a.id.scalarLess(b.id)
    }

    private static func updateOrder(_ a: Row, _ b: Row) -> Bool {
        updateOrder(Cursor(updatedAt: a.updatedAt, id: a.id), b)
    }

    /// Queries the table, checks what needs no ledger, records the rows. G1 when `headers` is empty.
    private func page(_ headers: [(String, String)], _ parameters: [(String, String)], select: [String]? = nil) throws -> [Row] {
        let target = "/tables/\(table)" + (parameters.isEmpty ? "" : "?" + WireQuery.string(parameters))
        let reply = try send(WireRequest("GET", target, headers: headers))
        let request = "GET \(target)"
        guard expect(reply, [200], request) else { return [] }
        let value = reply.json
        let top = parameters.first(where: { $0.0 == "$top" }).flatMap { Int($0.1) }
        let skip = parameters.first(where: { $0.0 == "$skip" }).flatMap { Int($0.1) } ?? 0
        let objects: [[String: JSONValue]]
        if parameters.contains(where: { $0.0 == "$inlinecount" }) {
            guard let results = value?["results"]?.arrayValue, let count = value?["count"]?.intValue else {
                run.fail("\(request): not {results, count}: \(reply.text)")
                return []
            }
            objects = results.compactMap(\.objectValue)
            // Count and page come from one state of the table: the page is what the count leaves.
            let expected = min(max(count - skip, 0), top ?? pageSize)
            if objects.count != expected {
                run.fail("\(request): count \(count) with $skip=\(skip) means \(expected) rows, the page has \(objects.count)")
            }
            if top == nil, !headers.isEmpty, (reply.header("Link") != nil) != (count > skip + pageSize) {
                run.fail("\(request): count \(count) and Link \(reply.header("Link") ?? "absent") disagree")
            }
        } else {
            guard let array = value?.arrayValue else {
                run.fail("\(request): not an array: \(reply.text)")
                return []
            }
            objects = array.compactMap(\.objectValue)
        }
        if objects.count > (top ?? pageSize) { run.fail("\(request): \(objects.count) rows, more than the page allows") }
        if let link = reply.header("Link"), objects.count != pageSize || top != nil {
            run.fail("\(request): Link \(link) on a page of \(objects.count) rows")
        }
        let rows = objects.compactMap { o -> Row? in
            guard let id = o["id"]?.stringValue else { return nil }
            return Row(id: id, updatedAt: (o["updatedAt"] ?? o["__updatedAt"])?.stringValue ?? "")
        }
        var seen = Set<String>()
        for row in rows where !seen.insert(row.id.lowercased()).inserted {
            run.fail("\(request): id \(row.id) twice in one answer")
        }
        run.count(.read)
        run.ledger.record(.read, request: request, table: table, rows: objects, select: select)
        return rows
    }

    private func expectOrdered(_ rows: [Row], _ what: String, by less: (Row, Row) -> Bool, in name: String) {
        for (a, b) in zip(rows, rows.dropFirst()) where !less(a, b) {
            run.fail("\(name): expected \(what), found \(a.id) (\(a.updatedAt)) before \(b.id) (\(b.updatedAt))")
            return
        }
    }

    private func expect(_ reply: WireReply, _ statuses: Set<Int>, _ request: String) -> Bool {
        if statuses.contains(reply.status) { return true }
        run.fail("\(request) answered \(reply.status) \(reply.text)")
        return false
    }
}
