import TodoBasics
import TodoModel
import TodoTestSupport

/// The steps of a run: offline changes, network commands and resolutions. Each step predicts only
/// what the spec promises for the replica's own files (which local change is refused, which merge
/// can work) and records what was acknowledged in the ledger.
extension SimRun {
    /// A random offline change of a random item on replica `r` (sync.md §3).
    func localChange(_ r: Int) {
        let replica = replicas[r]
        let id = pool[Int.random(in: 0..<pool.count, using: &rng)]
        let key = WriteLedger.key(id)
        let inConflict = replica.conflict(id) != nil
        let before = replica.item(id)
        let fields = userFields(before) ?? [:]
        let ops = replica.operations(id)
        let arg = spelled(id)

        guard before != nil else {
            // Absent here: add it. Refused while a conflict is open (§3.2), or behind a delete a
            // push may have sent (sealed); behind an unsent delete the add becomes an update of
            // the server's row (issue 19 item 3: `delete+insert`), whose base is the delete's.
            let text = "\(replica.name)-t\(nextValue())", priority = nextValue()
            let pendingDelete = ops.last?["kind"]?.stringValue == "delete"
            let refused = inConflict || (pendingDelete && ops.last?["attempted"]?.boolValue == true)
            let base = pendingDelete ? userFields(ops.last?["base"]?.objectValue) : nil
            let result = run(r, ["add", text, "--id", arg, "--set", "priority=\(priority)"], expect: refused ? [1] : [0])
            guard result.code == 0 else { return }
            ledger.adds.append((r, key, step))
            record(r, key, "text", .string(text), previous: base?["text"], "add")
            record(r, key, "priority", .number(Double(priority)), previous: base?["priority"], "add")
            return
        }
        let expect: Set<Int32> = inConflict ? [1] : [0]
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<35:
            let text = "\(replica.name)-t\(nextValue())"
            guard run(r, ["edit", arg, "--text", text], expect: expect).code == 0 else { return }
            record(r, key, "text", .string(text), previous: fields["text"], "edit --text")
        case 35..<60:
            let priority = nextValue()
            guard run(r, ["edit", arg, "--set", "priority=\(priority)"], expect: expect).code == 0 else { return }
            record(r, key, "priority", .number(Double(priority)), previous: fields["priority"], "edit --set")
        case 60..<75:
            let done = fields["complete"]?.boolValue ?? false
            run(r, [done ? "undone" : "done", arg], expect: expect)
        case 75..<85:
            let text = "\(replica.name)-t\(nextValue())", priority = nextValue()
            guard run(r, ["edit", arg, "--text", text, "--set", "priority=\(priority)"], expect: expect).code == 0 else { return }
            record(r, key, "text", .string(text), previous: fields["text"], "edit --text --set")
            record(r, key, "priority", .number(Double(priority)), previous: fields["priority"], "edit --text --set")
        default:
            guard run(r, ["rm", arg], expect: expect).code == 0 else { return }
            // An rm of an item whose insert is still queued cancels that add (insert + delete =
            // nothing, §3.4): it says nothing about a row someone else created.
            let cancelsAdd = ops.last?["kind"]?.stringValue == "insert"
            ledger.removals.append(.init(replica: r, id: key, step: step, snapshot: fields, cancelsAdd: cancelsAdd))
        }
    }

    func record(_ r: Int, _ id: String, _ field: String, _ value: JSONValue, previous: JSONValue?, _ command: String) {
        ledger.write(r, id, field, value, previous: previous, step: step, command: command)
    }

    /// push, pull or sync: finished (0) or finished with conflicts open (3); never a stop, since
    /// the server is up (sync.md §11). The status must say whether a conflict is open.
    func network(_ r: Int, _ command: String) {
        let held = !replicas[r].conflicts.isEmpty
        let result = run(r, [command], expect: [0, 3])
        let open = !replicas[r].conflicts.isEmpty
        if (result.code == 3) != open {
            fail("\(replicas[r].name): \(command) exited \(result.code) with \(open ? "" : "no ")conflict open")
        }
        // Push sends everything when it exits 0. Sync may leave ops the push held for a conflict
        // that its pull then closed (§7.4): they go out with the next push.
        if command != "pull" && result.code == 0 && !replicas[r].operations.isEmpty && !(command == "sync" && held) {
            fail("\(replicas[r].name): \(command) exited 0 with operations still queued")
        }
        if command != "push" { checkMirrorsServer(r) }
    }

    /// Resolves one open conflict of replica `r` with a random strategy; in the final rounds
    /// (`final`) after the second, always with --use-server so that the rounds end.
    func resolveOne(_ r: Int, final: Bool, round: Int = 0) {
        let replica = replicas[r]
        let conflicts = replica.conflicts
        guard !conflicts.isEmpty else { return }
        let conflict = conflicts[Int.random(in: 0..<conflicts.count, using: &rng)]
        guard let id = conflict["id"]?.stringValue else { return fail("conflict without id: \(conflict)") }
        let key = WriteLedger.key(id)
        let server = conflict["server"]?.objectValue
        let serverGone = server == nil || server?["ms_deleted"]?.boolValue == true
        let client = conflict["client"]?.objectValue
        let mergeable = conflict["reason"]?.stringValue == "conflict" && !serverGone && client != nil
            && (conflict["fields"]?.arrayValue ?? []).isEmpty
        let choice = final && round >= 2 ? 1 : Int.random(in: 0..<100, using: &rng) % 4
        switch choice {
        case 0:
            run(r, ["resolve", spelled(id), "--use-client"], expect: [0])
            if serverGone && client != nil { ledger.grantRestore(key, step: step) }
        case 1:
            run(r, ["resolve", spelled(id), "--use-server"], expect: [0])
        case 2:
            let code = run(r, ["resolve", spelled(id), "--merge"], expect: mergeable ? [0] : [1]).code
            if code != (mergeable ? 0 : 1) { fail("the conflict was \(JSONValue.object(conflict).compactText)") }
        default:
            if Bool.random(using: &rng) {
                replica.writeResolved(id, "delete")
                run(r, ["resolve", spelled(id)], expect: [0])
            } else {
                let text = "\(replica.name)-m\(nextValue())", priority = nextValue()
                replica.writeResolved(id, ["text": .string(text), "priority": .number(Double(priority)), "complete": true])
                guard run(r, ["resolve", spelled(id)], expect: [0]).code == 0 else { return }
                record(r, key, "text", .string(text), previous: nil, "resolve (manual)")
                record(r, key, "priority", .number(Double(priority)), previous: nil, "resolve (manual)")
                if serverGone { ledger.grantRestore(key, step: step) }
            }
        }
    }
}
