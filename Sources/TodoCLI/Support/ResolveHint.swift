import TodoModel
import TodoStore

/// The `todo resolve …` command to suggest for open conflicts: their real ids (as `list` shows
/// them), and only the choices that work for every one of them, found by planning each
/// resolution without committing it. `--merge` is offered only where no field clashes and no
/// side deleted the item.
enum ResolveHint {
    /// Beyond this many conflicts, or across tables, the hint names `--all` instead of ids.
    static let idLimit = 4

    /// Nil without open conflicts.
    static func command(_ conflicts: [Conflict], _ store: Store) -> String? {
        guard !conflicts.isEmpty else { return nil }
        let choices = [("--use-client", ResolutionStrategy.useClient), ("--use-server", .useServer), ("--merge", .merge)]
        let working = choices.filter { choice in conflicts.allSatisfy { works(choice.1, $0, store) } }.map(\.0)
        let tables = Set(conflicts.map(\.table))
        let defaultTable = (try? store.config().defaultTable) ?? ""
        var words = ["todo", "resolve"]
        if tables.count == 1, conflicts.count <= idLimit {
            let short = (try? ShortIDs.load(store, table: conflicts[0].table)) ?? ShortIDs(keys: [])
            words += conflicts.map { short.of($0.id) }
        } else {
            words.append("--all")
        }
        if tables.count == 1, let table = tables.first, !TableName.same(table, defaultTable) { words += ["--table", table] }
        if working.isEmpty {
            // No flag works for all of them (an inconsistent store): the first can still be written by hand.
            let short = (try? ShortIDs.load(store, table: conflicts[0].table)) ?? ShortIDs(keys: [])
            return (["todo", "resolve", short.of(conflicts[0].id)] + Array(words.suffix(from: words.firstIndex(of: "--table") ?? words.endIndex)) + ["--edit"]).joined(separator: " ")
        }
        return (words + [working.joined(separator: "|")]).joined(separator: " ")
    }

    private static func works(_ strategy: ResolutionStrategy, _ c: Conflict, _ store: Store) -> Bool {
        guard let ops = try? store.operations(table: c.table, id: c.id) else { return false }
        let item = (try? store.itemFile(table: c.table, id: c.id))??.item
        do { _ = try ConflictResolution.plan(c, operations: ops, item: item, strategy: strategy, now: "") } catch { return false }
        return true
    }
}
