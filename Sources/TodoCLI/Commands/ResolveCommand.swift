import TodoBasics
import TodoModel
import TodoStore

struct ResolveCommand: Command {
    static let name = "resolve"
    static let summary = "settle open conflicts: keep the client, server, merged or an edited copy"
    static let usage = "resolve ID... | --all [--use-client | --use-server | --merge | --edit] [--table NAME]"
    static let discussion = """
        Settles conflicts that push or pull recorded, using the copies in the conflict files; it never
        contacts the server, and the next 'todo push' publishes the decision.
          --use-client  keep the local copy, re-based on the server's version (the push overwrites the server)
          --use-server  take the server copy; every local change to the item is dropped
          --merge       keep both sides' changes; fails when a field changed on both sides or either side deleted
          --edit        edit a proposal in $EDITOR (else $VISUAL, else vi) and resolve with what you save
        Without a flag, the 'resolved' member you wrote in the conflict file is used: the wanted item
        (an object) or "delete". ID may be a unique prefix, ignoring case. All the conflicts named are
        resolved in one commit: if any fails, nothing changes and every failure is listed. Each
        resolution leaves a receipt with the values that lost (see 'todo log').
        """
    static let options: [OptionSpec] = [
        OptionSpec("--use-client", .flag, "keep the local copy"),
        OptionSpec("--use-server", .flag, "take the server copy"),
        OptionSpec("--merge", .flag, "merge both copies when no field clashes"),
        OptionSpec("--edit", .flag, "write the resolution in an editor (one ID)"),
        OptionSpec("--all", .flag, "every open conflict (of --table, when given)"),
        .table,
    ]

    /// One conflict that cannot be resolved: the message and what to do.
    struct Failure {
        var message: String
        var hint: String
    }

    struct Options: Equatable {
        /// How each conflict is settled; `.written` takes the 'resolved' member of its file.
        enum Strategy: Equatable { case written, useClient, useServer, merge, edit }
        /// The IDs as given; empty with `all`.
        var ids: [String] = []
        var all = false
        var strategy = Strategy.written
        var table: String?
    }

    static func parse(_ args: ParsedArguments) throws(CLIError) -> Options {
        let flags: [(String, Options.Strategy)] = [("--use-client", .useClient), ("--use-server", .useServer),
                                                    ("--merge", .merge), ("--edit", .edit)].filter { args.has($0.0) }
        if flags.count > 1 { throw .usage("\(flags[0].0) and \(flags[1].0) exclude each other", command: name) }
        let all = args.has("--all")
        let ids = args.positionals
        if ids.isEmpty && !all { throw .usage("missing ID (the conflicts to resolve), or --all", command: name) }
        if !ids.isEmpty && all { throw .usage("give conflict ids or --all, not both", command: name) }
        let strategy = flags.first?.1 ?? .written
        if strategy == .edit && ids.count != 1 { throw .usage("--edit resolves one conflict at a time; give one ID", command: name) }
        return Options(ids: ids, all: all, strategy: strategy, table: args.value("--table"))
    }

    static func run(_ options: Options, _ ctx: CommandContext) throws(CLIError) -> Int32 {
        let edit = options.strategy == .edit
        let store = try StoreAccess.open(ctx, writable: true, command: name)
        let (conflicts, unmatched) = try targets(options, store)
        var failures = unmatched
        if conflicts.isEmpty && failures.isEmpty {
            ctx.console.out("no open conflicts; nothing to resolve")
            return ExitCode.ok
        }
        var edited: EditedResolution? = nil
        if edit, failures.isEmpty, let c = conflicts.first {
            edited = try EditedResolution.ask(c, store, ctx)
        }
        let now = ctx.clock.nowText()
        var plans: [(ResolutionPlan, ResolutionStrategy)] = []
        for c in conflicts {
            let strategy = edited.map { .manual($0.value) } ?? chosen(options.strategy, c)
            let conflictFile = store.displayPath(store.layout.conflict(c.table, c.id))
            do {
                let ops = try store.operations(table: c.table, id: c.id)
                let item = try store.item(table: c.table, id: c.id)
                plans.append((try ConflictResolution.plan(c, operations: ops, item: item, strategy: strategy, now: now), strategy))
            } catch let error as ResolutionFailure {
                var failure = Failure(message: error.message(conflictFile: edited?.file ?? conflictFile), hint: hint(error, c))
                if let edited { failure.hint = "your text is kept in \(edited.file); fix it and save it as 'resolved' in \(conflictFile), then run 'todo resolve \(ShortID.of(c.id))'" }
                failures.append(failure)
            } catch let error as StoreError {
                throw .store(error)
            } catch {
                throw CLIError(.internal, "\(error)")
            }
        }
        if !failures.isEmpty { throw combined(failures, total: conflicts.count + unmatched.count) }

        var tx: StoreTransaction
        do { tx = try store.transaction() } catch { throw .store(error) }
        for (plan, _) in plans { stage(plan, &tx) }
        try StoreAccess.commit(tx, store, ctx)
        edited?.discard(ctx)
        for (plan, strategy) in plans { ctx.console.out(describe(plan, strategy)) }
        return ExitCode.ok
    }

    static func chosen(_ strategy: Options.Strategy, _ c: Conflict) -> ResolutionStrategy {
        switch strategy {
        case .useClient: return .useClient
        case .useServer: return .useServer
        case .merge: return .merge
        case .written, .edit: return .manual(c.resolved)
        }
    }

    /// The conflicts named on the command line (item number, exact id, else a unique prefix,
    /// ignoring case), or
    /// every open one for `--all`; ids without a conflict become failures.
    static func targets(_ options: Options, _ store: Store) throws(CLIError) -> ([Conflict], [Failure]) {
        let open: [Conflict]
        do { open = try store.conflicts() } catch { throw .store(error) }
        if options.all {
            guard let named = options.table else { return (open, []) }
            let table = try StoreAccess.table(named, store, create: false)
            return (open.filter { $0.table == table }, [])
        }
        let table = try StoreAccess.table(options.table, store, create: false)
        let candidates = open.filter { $0.table == table }
        var found: [Conflict] = [], failures: [Failure] = []
        for given in options.ids {
            // As `StoreAccess.resolveID`: a number names its item's conflict; `id:` makes an id only.
            let marked = given.hasPrefix(StoreAccess.idMarker) && !candidates.contains { ItemID.same($0.id, given) }
            let arg = marked ? String(given.dropFirst(StoreAccess.idMarker.count)) : given
            var numbered: Conflict?
            if !marked, let n = ItemNumbers.parse(arg), let key = try? store.itemKey(number: n, table: table) {
                numbered = candidates.first { ItemID.key($0.id) == key }
            }
            let exact = candidates.filter { ItemID.same($0.id, arg) }
            var matches = !exact.isEmpty ? exact : numbered != nil && arg.count < ShortIDs.minimum ? []
                : candidates.filter { ItemID.key($0.id).hasPrefix(ItemID.key(arg)) }
            if let numbered {
                matches.removeAll { ItemID.same($0.id, numbered.id) }
                guard matches.isEmpty else {
                    failures.append(Failure(message: "'\(arg)' is ambiguous: it is the number of item \(numbered.id), and names "
                                            + "\(Plural.count(matches.count, "other conflict")) (\(matches.map(\.id).sorted().joined(separator: ", ")))",
                                            hint: "say which: \(numbered.id) for number \(arg), or \(StoreAccess.idMarker)\(arg) for the others"))
                    continue
                }
                matches = [numbered]
            }
            if matches.count == 1 {
                if !found.contains(where: { ItemID.same($0.id, matches[0].id) }) { found.append(matches[0]) }
            } else if matches.isEmpty {
                failures.append(Failure(message: "no conflict recorded for \(arg)", hint: "see the open conflicts with 'todo status'"))
            } else {
                let shown = matches.map(\.id).sorted().joined(separator: ", ")
                failures.append(Failure(message: "id prefix '\(arg)' is ambiguous: it matches \(matches.count) conflicts (\(shown))",
                                        hint: "give more characters of the id"))
            }
        }
        return (found, failures)
    }

    static func hint(_ error: ResolutionFailure, _ c: Conflict) -> String {
        let short = ShortID.of(c.id)
        switch error {
        case .noResolution: return "see the copies with 'todo diff \(short)'"
        case .clash: return "keep one side with --use-client or --use-server, or write the wanted item with --edit; 'todo diff \(short)' shows the copies"
        case .deletionCannotBeMerged: return "keep one side with --use-client or --use-server"
        case .nothingToMerge: return "--use-client sends it again, --use-server takes the server copy, --edit fixes it"
        case .invalidResolution: return "write the wanted item as an object of fields, or \"delete\""
        case .incompleteResolution: return "write each of them with the value to keep, or null to remove it; 'todo diff \(short)' shows the copies"
        case .inconsistent: return "run 'todo doctor'"
        }
    }

    /// One failure as it is; several under one line, so every failure is listed (§8.1).
    static func combined(_ failures: [Failure], total: Int) -> CLIError {
        if failures.count == 1 && total == 1 { return CLIError(.failure, failures[0].message, hint: failures[0].hint) }
        let lines = failures.map { "  " + $0.message }.joined(separator: "\n")
        let hints = Set(failures.map(\.hint))
        return CLIError(.failure, "nothing was resolved: \(failures.count) of \(total) failed\n" + lines,
                        hint: hints.count == 1 ? failures[0].hint : "fix those listed, or resolve the others without them; 'todo status' lists the open conflicts")
    }

    static func stage(_ plan: ResolutionPlan, _ tx: inout StoreTransaction) {
        for op in plan.removals { tx.removeOperation(op) }
        for op in plan.writes { tx.putOperation(op) }
        if plan.item != plan.itemBefore {
            if let item = plan.item { tx.putItem(item, table: plan.table) } else { tx.removeItem(table: plan.table, id: plan.id) }
        }
        tx.removeConflict(table: plan.table, id: plan.id)
        for receipt in plan.receipts { tx.addReceipt(receipt) }
    }

    /// "resolved D265929E using the client copy; run 'todo push' to publish" (§8.6).
    static func describe(_ plan: ResolutionPlan, _ strategy: ResolutionStrategy) -> String {
        let how: String
        switch strategy {
        case .useClient: how = "using the client copy"
        case .useServer: how = plan.item == nil ? "using the server copy (deleted there, so removed here)" : "using the server copy"
        case .merge: how = "by merging both copies"
        case .manual(let value): how = value == "delete" ? "by deleting the item" : "using your resolution"
        }
        let next = plan.remaining.isEmpty ? "nothing to push" : "run 'todo push' to publish"
        return "resolved \(ShortID.of(plan.id)) \(how); \(next)"
    }
}
