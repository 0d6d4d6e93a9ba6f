import TodoBasics
import TodoModel
import TodoTestSupport

/// The campaign's commands. A local command names the item's fields before and after it, so a
/// kill can be judged (scenario 89: the store is exactly one or the other); network commands and
/// resolutions are judged by the files and the server.
extension CrashCampaign {
    /// One local change of one item, and what it acknowledges once it has taken effect.
    struct Change {
        var args: [String]
        var id: String
        var before: [String: JSONValue]?
        var after: [String: JSONValue]?
        /// The unique values it writes (sync.md's invariants are stated about them).
        var writes: [(field: String, value: JSONValue)] = []
        var isAdd = false
        /// The exit code of the same command run again after it took effect: `add` of an existing
        /// id and `rm` of a missing item are refused; edits find nothing to do.
        var again: Int32 = 0
    }

    /// A random change of kind `kind` on replica `r`: a new item, or an item without an open
    /// conflict (six times in ten one of the shared `h` items, so that replicas collide).
    func localChange(_ r: Int, _ kind: Kind) {
        let name = names[r]
        if kind == .add {
            let id = "\(name.lowercased())\(next())", text = "\(name)-t\(next())", priority = next()
            return apply(r, kind, Change(args: ["add", text, "--id", id, "--set", "priority=\(priority)"], id: id, before: nil,
                                         after: ["text": .string(text), "complete": false, "priority": .number(Double(priority))],
                                         writes: [("text", .string(text)), ("priority", .number(Double(priority)))], isAdd: true, again: 1))
        }
        let all = items(r)
        let busy = Set(conflicts(r).map { WriteLedger.key($0["id"]?.stringValue ?? "") })
        let free = all.keys.filter { !busy.contains($0) }.sorted()
        let hot = free.filter { $0.hasPrefix("h") }
        guard !free.isEmpty else { return localChange(r, .add) }
        let pool = !hot.isEmpty && Int.random(in: 0..<10, using: &rng) < 6 ? hot : free
        let id = pool[Int.random(in: 0..<pool.count, using: &rng)]
        let before = all[id]!
        var after = before
        switch kind {
        case .editText:
            let text = JSONValue.string("\(name)-t\(next())")
            after["text"] = text
            apply(r, kind, Change(args: ["edit", id, "--text", text.stringValue!], id: id, before: before, after: after, writes: [("text", text)]))
        case .editFields:
            let priority = JSONValue.number(Double(next()))
            after["priority"] = priority
            var change = Change(args: ["edit", id, "--set", "priority=\(Int(priority.numberValue!))"], id: id, before: before, after: after,
                                writes: [("priority", priority)])
            if Bool.random(using: &rng) {
                let text = JSONValue.string("\(name)-t\(next())")
                change.after?["text"] = text
                change.args += ["--text", text.stringValue!]
                change.writes.append(("text", text))
            }
            apply(r, kind, change)
        case .done:
            let done = before["complete"]?.boolValue ?? false
            after["complete"] = .bool(!done)
            apply(r, kind, Change(args: [done ? "undone" : "done", id], id: id, before: before, after: after))
        default:
            apply(r, kind, Change(args: ["rm", id], id: id, before: before, after: nil, again: 1))
        }
    }

    /// Runs `change` on replica `r`: as a kill point of `kind`, or to its end when `kind` is nil.
    /// A killed command must have left the item as before or as after; then it is run again, as
    /// a user would, and the change is acknowledged.
    func apply(_ r: Int, _ kind: Kind?, _ change: Change) {
        let ops = operations(r).filter { WriteLedger.key($0["id"]?.stringValue ?? "") == change.id }
        let receiptMark = lastReceiptNumber(r)
        let command = "todo \(change.args.joined(separator: " "))"
        let code = kind.map { killPoint(r, $0, change.args) } ?? run(r, change.args, expect: [0])
        guard failures.isEmpty else { return }
        let now = items(r)[change.id]
        if let code {
            guard code == 0, now == change.after else {
                return fail("\(names[r]): \(command) exited \(code); item \(change.id) is \(show(now)), expected \(show(change.after))\n\(printed(r))")
            }
        } else {
            guard now == change.before || now == change.after else {
                return fail("\(names[r]): \(command) killed: item \(change.id) is \(show(now)), neither before \(show(change.before)) nor after \(show(change.after))")
            }
            let took = now == change.after
            run(r, change.args, expect: [took ? change.again : 0], measures: took ? nil : kind)
            let again = items(r)[change.id]
            if again != change.after { return fail("\(names[r]): \(command) run again: item \(change.id) is \(show(again)), expected \(show(change.after))") }
        }
        for write in change.writes {
            ledger.write(r, change.id, write.field, write.value, previous: change.before?[write.field], step: step, command: command)
        }
        if change.isAdd { ledger.adds.append((r, change.id, step)) }
        if change.after == nil, let snapshot = change.before {
            ledger.removals.append(.init(replica: r, id: change.id, step: step, snapshot: snapshot,
                                         cancelsAdd: ops.last?["kind"]?.stringValue == "insert", receiptMark: receiptMark))
        }
    }

    func show(_ fields: [String: JSONValue]?) -> String {
        fields.map { JSONValue.object($0).compactText } ?? "absent"
    }

    /// The number of the replica's newest receipt (0 if none): receipts are numbered in order.
    func lastReceiptNumber(_ r: Int) -> Int {
        let names = (try? LocalFileSystem().listDirectory(store(r).appendingPath("receipts"))) ?? []
        return names.compactMap { Int($0.prefix { $0.isNumber }) }.max() ?? 0
    }

    /// push, pull (a quarter of them `--full`) or sync as a kill point; a killed one is run again
    /// half the time, else the workload goes on with whatever it left (sealed ops, a partial pull).
    func network(_ r: Int, _ kind: Kind) {
        let args = kind == .pull && Int.random(in: 0..<4, using: &rng) == 0 ? ["pull", "--full"] : [kind == .push ? "push" : kind == .pull ? "pull" : "sync"]
        let held = !conflicts(r).isEmpty
        if let code = killPoint(r, kind, args) {
            finished(r, kind, code, held: held)
        } else if Bool.random(using: &rng) {
            finished(r, kind, run(r, args, expect: [0, 3], measures: kind), held: held)
        }
        checkServer()
    }

    /// A push, pull or sync that ran to its end: 0 or 3 (the server is up), 3 exactly when a
    /// conflict is open; a push that exited 0 sent everything; after a pull the replica mirrors
    /// the server for every item it has no pending change of.
    func finished(_ r: Int, _ kind: Kind, _ code: Int32, held: Bool) {
        guard code == 0 || code == 3 else { return fail("\(names[r]): \(kind.rawValue) exited \(code)\n\(printed(r))") }
        let open = !conflicts(r).isEmpty
        if (code == 3) != open { fail("\(names[r]): \(kind.rawValue) exited \(code) with \(open ? "" : "no ")conflict open") }
        if kind != .pull && code == 0 && !operations(r).isEmpty && !(kind == .sync && held) {
            fail("\(names[r]): \(kind.rawValue) exited 0 with operations still queued")
        }
        if kind != .push { checkMirrorsServer(r) }
        // "pulled todoitem query 'default': N rows, …": more rows than a page (3) took several.
        let said = printed(r)
        if let range = said.firstRange(of: "query 'default': "), let rows = Int(said[range.upperBound...].prefix { $0.isNumber }), rows > 3 {
            pagedPulls += 1
        }
    }

    /// Resolves one open conflict of replica `r` with a random strategy that applies (`--merge`
    /// only when the conflict names no clashing field), as a kill point when `kind` is given.
    /// `--use-server` and `--use-client` leave the item equal to the chosen copy.
    func resolveOne(_ r: Int, kind: Kind?, forceServer: Bool = false, preferMerge: Bool = false) {
        let all = conflicts(r)
        let mergeable = { (c: [String: JSONValue]) -> Bool in
            c["reason"]?.stringValue == "conflict" && c["client"]?.objectValue != nil && (c["fields"]?.arrayValue ?? []).isEmpty
                && c["server"]?.objectValue.map { $0["ms_deleted"]?.boolValue != true } == true
        }
        let candidates = preferMerge && all.contains(where: mergeable) ? all.filter(mergeable) : all
        let conflict = candidates[Int.random(in: 0..<candidates.count, using: &rng)]
        guard let rawID = conflict["id"]?.stringValue else { return fail("conflict without id: \(conflict)") }
        let id = WriteLedger.key(rawID)
        let serverCopy = conflict["server"]?.objectValue
        let serverGone = serverCopy == nil || serverCopy?["ms_deleted"]?.boolValue == true
        let client = conflict["client"]?.objectValue
        let strategy = forceServer ? "--use-server" : preferMerge && mergeable(conflict) ? "--merge"
            : ["--use-client", "--use-server", "--merge"][Int.random(in: 0..<(mergeable(conflict) ? 3 : 2), using: &rng)]
        let args = ["resolve", rawID, strategy]
        if kind != nil { strategies[strategy, default: 0] += 1 }
        let before = items(r)[id]
        let code = kind.map { killPoint(r, $0, args) } ?? run(r, args, expect: [0])
        guard failures.isEmpty else { return }
        let open = conflicts(r).first { WriteLedger.key($0["id"]?.stringValue ?? "") == id }
        if let code {
            guard code == 0, open == nil else { return fail("\(names[r]): todo resolve \(rawID) \(strategy) exited \(code), conflict \(open == nil ? "closed" : "open")\n\(printed(r))") }
        } else {
            if let open, open != conflict || items(r)[id] != before {
                return fail("\(names[r]): killed resolve \(rawID) \(strategy) left the conflict open but changed it or the item")
            }
            run(r, args, expect: [open == nil ? 1 : 0], measures: open == nil ? nil : kind)
        }
        let expected: [String: JSONValue]?? = switch strategy {
        case "--use-server": .some(serverGone ? nil : userFields(serverCopy))
        case "--use-client": .some(userFields(client))
        default: .none
        }
        if let expected, items(r)[id] != expected {
            fail("\(names[r]): after resolve \(rawID) \(strategy) the item is \(show(items(r)[id])), expected \(show(expected))")
        }
        if strategy == "--use-client" && serverGone && client != nil { ledger.grantRestore(id, step: step) }
    }

    /// Makes a real conflict between two replicas, for the resolve kill points: both edit one
    /// shared item, or one removes what the other edits (either way round), or both add one id
    /// (with the same text and one extra field, so that `--merge` applies). Returns a replica
    /// with an open conflict, or nil if none formed.
    func makeConflict(variant chosen: Int? = nil) -> Int? {
        conflictsMade += 1
        let x = Int.random(in: 0..<names.count, using: &rng)
        let y = (x + Int.random(in: 1..<names.count, using: &rng)) % names.count
        if chosen == nil {
            for r in [x, y] { finished(r, .sync, run(r, ["sync"], expect: [0, 3]), held: !conflicts(r).isEmpty) }
            if let r = replicaWithConflict() { return r }
        }
        let ix = items(x), iy = items(y)
        let shared = ix.keys.filter { iy[$0] != nil }.sorted()
        let variant = chosen ?? (shared.isEmpty ? 3 : Int.random(in: 0..<4, using: &rng))
        let id = variant == 3 ? "d\(next())" : shared[Int.random(in: 0..<shared.count, using: &rng)]
        func edit(_ r: Int) {
            let text = JSONValue.string("\(names[r])-t\(next())")
            var after = items(r)[id]!
            let before = after
            after["text"] = text
            apply(r, nil, Change(args: ["edit", id, "--text", text.stringValue!], id: id, before: before, after: after, writes: [("text", text)]))
        }
        func remove(_ r: Int) {
            apply(r, nil, Change(args: ["rm", id], id: id, before: items(r)[id], after: nil))
        }
        switch variant {
        case 0: edit(x); run(x, ["push"], expect: [0, 3]); edit(y)
        case 1: edit(x); run(x, ["push"], expect: [0, 3]); remove(y)
        case 2: remove(x); run(x, ["push"], expect: [0, 3]); edit(y)
        default:
            let text = JSONValue.string("\(names[x])-t\(next())"), priority = JSONValue.number(Double(next()))
            apply(x, nil, Change(args: ["add", text.stringValue!, "--id", id], id: id, before: nil, after: ["text": text, "complete": false],
                                 writes: [("text", text)], isAdd: true))
            run(x, ["push"], expect: [0, 3])
            // The same text again is not a new write of it: only the priority is y's own value.
            apply(y, nil, Change(args: ["add", text.stringValue!, "--id", id, "--set", "priority=\(Int(priority.numberValue!))"], id: id, before: nil,
                                 after: ["text": text, "complete": false, "priority": priority], writes: [("priority", priority)], isAdd: true))
        }
        run(y, ["push"], expect: [0, 3])
        checkServer()
        return conflicts(y).isEmpty ? replicaWithConflict() : y
    }
}
