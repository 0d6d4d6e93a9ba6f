import TodoBasics
import TodoModel
import TodoStore

/// Opening the replica and naming things in it, shared by every command that needs a store.
enum StoreAccess {
    static func open(_ ctx: CommandContext, writable: Bool, command: String) throws(CLIError) -> Store {
        do {
            let root = try Store.discover(from: ctx.workingDirectory, override: ctx.environment["TODO_DIR"], fs: ctx.fs)
            let store = try Store.open(at: root, fs: ctx.fs, writable: writable, command: "todo \(command)")
            // Small buckets make a test's pull of a few hundred rows leave the index of ids stale.
            if let limit = ctx.environment["TODO_TEST_ID_BUCKET_LIMIT"].flatMap(Int.init), limit > 1 { store.idIndexBucketLimit = limit }
            return store
        } catch {
            throw .store(error)
        }
    }

    /// The stored spelling of the table `--table` names (nil: the default), ignoring case.
    /// `create` allows a table the replica does not have yet (its first `add`).
    static func table(_ named: String?, _ store: Store, create: Bool) throws(CLIError) -> String {
        let config: ReplicaConfig
        do { config = try store.config() } catch { throw .store(error) }
        let requested = named ?? config.defaultTable
        if let problem = TableName.problem(requested) { throw CLIError(.usage, problem, hint: "see 'todo --help'") }
        let existing: String?
        do { existing = try store.resolveTable(requested) } catch { throw .store(error) }
        if let existing { return existing }
        if create { return requested }
        let tables = (try? store.tables()) ?? []
        let here = "tables here: \(tables.isEmpty ? "none" : tables.joined(separator: ", "))"
        // A table made on the server after the clone is not here until a pull brings it.
        guard config.remote != nil else { throw CLIError(.failure, "no table '\(requested)' in this replica", hint: "\(here); 'todo add --table \(requested)' creates it") }
        throw CLIError(.failure, "no table '\(requested)' in this replica",
                       hint: "\(here); if the server has it, 'todo pull --table \(requested)' brings it ('todo pull --all-tables' brings every table the server has); 'todo add --table \(requested)' creates it")
    }

    /// Finds the item an argument names: its number on this replica (`ItemNumbers`), its exact
    /// id (ignoring case), else a unique prefix of an id the table knows (an item, a pending
    /// operation's, a conflict's), like git's short hashes. Returns the stored spelling. An id
    /// with pending operations but no local item (deleted here) is returned as given, so the
    /// collapse rules can answer.
    ///
    /// A bare number that is also an item's id, or the start of one (4 characters or more: ids
    /// are never shown shorter), is refused as ambiguous, listing both; a shorter one is the
    /// number, since no listing shows an id prefix of 1 to 3 characters. `id:` before an argument
    /// makes it an id or id prefix only (unless an id is spelled so).
    static func resolveID(_ arg: String, table: String, in store: Store) throws(CLIError) -> String {
        if arg.hasPrefix(idMarker), arg.count > idMarker.count {
            let exact: String?
            do { exact = try spelling(of: arg, table: table, in: store) } catch { throw .store(error) }
            if let exact { return exact }
            return try resolveID(String(arg.dropFirst(idMarker.count)), table: table, in: store, numbers: false)
        }
        return try resolveID(arg, table: table, in: store, numbers: true)
    }

    /// What makes an argument an id only: `todo done id:12` is the item whose id is 12.
    static let idMarker = "id:"

    private static func resolveID(_ arg: String, table: String, in store: Store, numbers: Bool) throws(CLIError) -> String {
        var matches: [String] = []
        var spelled: [String] = []
        var numbered: (number: Int, key: String, spelled: String?)?
        do throws(StoreError) {
            if numbers, let number = ItemNumbers.parse(arg), let key = try store.itemKey(number: number, table: table) {
                numbered = (number, key, try spelling(of: key, table: table, in: store))
            }
            if let exact = try spelling(of: arg, table: table, in: store) {
                guard let n = numbered?.spelled, !ItemID.same(n, exact) else { return exact }
                matches = [ItemID.key(exact)]
            } else if numbered?.spelled == nil || arg.count >= ShortIDs.minimum {
                matches = try store.knownIDKeys(table: table, prefix: ItemID.key(arg)).filter { $0 != numbered?.key }
            }
            for key in matches.prefix(10) { spelled.append(try spelling(of: key, table: table, in: store) ?? key) }
        } catch {
            throw .store(error)
        }
        if let numbered, let id = numbered.spelled {
            if matches.isEmpty { return id }
            let what = matches.count == 1 && ItemID.key(arg) == matches[0] ? "the id of another item"
                : "the start of \(Plural.count(matches.count, "other id")) (\(spelled.joined(separator: ", "))\(matches.count > 10 ? ", ..." : ""))"
            let other = matches.count == 1 && ItemID.key(arg) == matches[0] ? "\(idMarker)\(arg) for the item whose id is \(arg)"
                : "more characters for the others"
            throw CLIError(.failure, "'\(arg)' is ambiguous: it is the number of item \(id), and \(what)",
                           hint: "say which: \(id) for number \(numbered.number), or \(other)")
        }
        if matches.count == 1 { return spelled[0] }
        if matches.isEmpty {
            if let numbered {
                throw CLIError(.failure, "no such item \(arg): number \(numbered.number) was given to \(numbered.key), which this replica no longer has",
                               hint: "numbers are never reused; list the items with 'todo list --all'")
            }
            throw CLIError(.failure, "no such item \(arg)", hint: "list the items with 'todo list --all'")
        }
        let shown = spelled.joined(separator: ", ") + (matches.count > 10 ? ", ..." : "")
        throw CLIError(.failure, "id prefix '\(arg)' is ambiguous: it matches \(matches.count) items (\(shown))",
                       hint: "give more characters of the id")
    }

    /// The stored spelling of an id the table knows exactly, or nil.
    private static func spelling(of id: String, table: String, in store: Store) throws(StoreError) -> String? {
        if let file = try store.itemFile(table: table, id: id) { return file.item.id }  // hand edits are judged later
        if let op = try store.operations(table: table, id: id).last { return op.id }
        if store.hasConflict(table: table, id: id) { return try store.conflict(table: table, id: id)?.id ?? id }
        return nil
    }

    /// A consistent read for a reading command (`Store.consistentRead`), with everything it needs
    /// (table and id resolution too) inside, so all of it sees the same state. When that state
    /// holds a committed change that could not be written yet (a read-only folder), the command
    /// shows it and says so on stderr.
    /// Hand-edited files are shown as they are; unless `quiet`, each is reported on stderr (the
    /// commands that list them in their output pass `quiet`).
    static func read<T>(_ store: Store, _ ctx: CommandContext, quiet: Bool = false,
                        _ body: (Store) throws(CLIError) -> T) throws(CLIError) -> T {
        let log = HandEditLog()
        store.handEditLog = log
        defer { store.handEditLog = nil }
        let result: Result<T, CLIError>
        do {
            result = try store.consistentRead { s throws(StoreError) in
                do throws(CLIError) { return .success(try body(s)) } catch { return .failure(error) }
            }
        } catch {
            throw .store(error)
        }
        if let unfinished = store.unfinishedCommit { warnShownUnfinished(unfinished, ctx) }
        if !quiet { for edit in log.all { warnHandEdit(edit, ctx) } }
        return try result.get()
    }

    /// The start of a read that prints as it goes (`list`, `export`, `log`, `diff`): a consistent
    /// read retries its body when the store changed meanwhile, and output already written cannot
    /// be taken back, so a retry after that stops with what happened; before it, the output
    /// buffered so far is dropped and printed again.
    static func startStreaming(_ ctx: CommandContext) throws(CLIError) {
        if ctx.console.hasWrittenOut {
            throw CLIError(.failure, "the replica changed while it was being listed (another todo command wrote to it)",
                           hint: "run the command again")
        }
        ctx.console.discardUnwrittenOut()
    }

    /// A hand edit a reading command met: what it is and what to do.
    static func warnHandEdit(_ edit: HandEdit, _ ctx: CommandContext) {
        ctx.console.err("warning: " + StoreError.editedByHandMessage(edit))
        ctx.console.err("hint: " + StoreError.editedByHandHint(edit))
    }

    /// A command that changes the store refuses hand-edited files it would build on: every one
    /// is listed, with what to do.
    static func refuse(_ edits: [HandEdit]) -> CLIError {
        if edits.count == 1 { return .store(.editedByHand(edits[0])) }
        let lines = edits.map { "  " + StoreError.editedByHandMessage($0) }.joined(separator: "\n")
        return CLIError(.failure, "\(edits.count) files were edited by hand, and todo has not recorded them:\n" + lines,
                        hint: "for each item, record the edit with 'todo edit ID --adopt', or put back what todo wrote with 'todo edit ID --discard'; 'todo status' lists them")
    }

    /// What a reader says about a committed change it showed but could not write.
    static func warnShownUnfinished(_ cause: StoreError, _ ctx: CommandContext) {
        ctx.console.err("warning: shown with a committed change that is not written to its files yet (\(cause.message))")
        ctx.console.err("hint: nothing is lost: \(StoreLayout.directoryName)/\(StoreLayout.journalFile) holds it; once the folder can be written, any todo command (or 'todo doctor') finishes it")
    }

    /// Commits a command's one transaction. A failure after the commit point is not the command's
    /// failure: the change has happened and the next command finishes writing it, so it is a
    /// warning and the command goes on to report success (a retried `add` would duplicate).
    static func commit(_ tx: StoreTransaction, _ store: Store, _ ctx: CommandContext) throws(CLIError) {
        do {
            try store.commit(tx)
        } catch .unfinished(let cause) {
            warnUnfinished(cause, ctx)
        } catch {
            throw .store(error)
        }
    }

    /// Commits a purge or table rm with its removal of item files (`ItemRemoval`). False when the
    /// change is saved but some files are left for the next command to remove (said on stderr).
    @discardableResult
    static func commit(_ tx: StoreTransaction, _ removal: ItemRemoval, _ ctx: CommandContext) throws(CLIError) -> Bool {
        do {
            try removal.commit(tx)
            return true
        } catch .unfinished(let cause) {
            ctx.console.err("warning: the change is saved, but writing its files did not finish: \(cause.description)")
            ctx.console.err("hint: nothing is lost: todo already shows the change, and the next todo command (or 'todo doctor') "
                            + "finishes it once the cause is fixed")
            return false
        } catch {
            throw .store(error)
        }
    }

    /// Two lines on stderr: the change is saved, what did not finish, and what to do.
    static func warnUnfinished(_ cause: FileSystemError, _ ctx: CommandContext) {
        ctx.console.err("warning: the change is saved, but writing its files did not finish: \(cause.description)")
        ctx.console.err("hint: nothing is lost: \(StoreLayout.directoryName)/\(StoreLayout.journalFile) holds it and todo already shows it; "
                        + "the next todo command (or 'todo doctor') finishes it once the cause is fixed")
    }
}
