import TodoBasics
import TodoModel
import TodoStore

/// `todo resolve ID --edit` (sync.md §8.3.5): list the clashing fields, open a proposal in the
/// user's editor, and read back what was saved. The store lock stays held meanwhile, so the
/// conflict cannot change under the editor.
struct EditedResolution {
    /// The temporary file, kept when the resolution fails so the text is not lost.
    var file: String
    var value: JSONValue

    static func ask(_ c: Conflict, _ store: Store, _ ctx: CommandContext) throws(CLIError) -> EditedResolution {
        let ops: [PendingOperation], item: Item?
        do {
            ops = try store.operations(table: c.table, id: c.id)
            item = try store.item(table: c.table, id: c.id)
        } catch { throw .store(error) }
        let short = ShortID.of(c.id)
        let clashing = c.fields.isEmpty ? "no clashing fields" : "clashing fields: " + c.fields.joined(separator: ", ")
        let file = try Editor.temporaryFile(ctx.environment, label: short)
        let proposal = ResolvedCopy.proposal(c, operation: ops.first, item: item)
        do { try ctx.fs.writeFile(file, proposal.canonicalBytes(), sync: false) } catch {
            throw CLIError(.failure, "cannot write \(file): \(error)", hint: "set TMPDIR to a writable folder")
        }
        ctx.console.err("\(short): \(c.kindDescription); \(clashing)")
        ctx.console.err("editing the proposed resolution in \(file) (save an empty file to abort)")
        ctx.console.flush()

        let editor = Editor.command(ctx.environment)
        let status = Editor.run(editor, file: file, environment: ctx.environment)
        guard status == 0 else {
            try? ctx.fs.removeFile(file)
            let what = status.map { "exited with status \($0)" } ?? "could not be run"
            throw CLIError(.failure, "the editor '\(editor)' \(what); nothing changed",
                           hint: "set EDITOR to your editor, or write 'resolved' in \(store.displayPath(store.layout.conflict(c.table, c.id)))")
        }
        let bytes: [UInt8]
        do { bytes = try ctx.fs.readFile(file) ?? [] } catch {
            throw CLIError(.failure, "cannot read \(file): \(error); nothing changed", hint: "run 'todo resolve \(short) --edit' again")
        }
        if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
            try? ctx.fs.removeFile(file)
            throw CLIError(.failure, "the resolution is empty: aborted, nothing changed",
                           hint: "run 'todo resolve \(short) --edit' again, or use --use-client, --use-server or --merge")
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch {
            throw CLIError(.failure, "\(file): invalid JSON: \(error); nothing changed",
                           hint: "your text is kept in \(file); fix it and run 'todo resolve \(short) --edit' again")
        }
        if value.isNull {
            throw CLIError(.failure, "\(file): the resolution must be an object (the wanted item) or \"delete\", not null; nothing changed",
                           hint: "your text is kept in \(file); fix it and run 'todo resolve \(short) --edit' again")
        }
        return EditedResolution(file: file, value: value)
    }

    /// The text was used: the temporary file goes.
    func discard(_ ctx: CommandContext) {
        try? ctx.fs.removeFile(file)
    }
}
