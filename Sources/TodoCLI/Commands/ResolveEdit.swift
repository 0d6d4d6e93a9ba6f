import TodoBasics
import TodoModel
import TodoStore

/// `todo resolve ID --edit` (sync.md §8.3.5): list the clashing fields, open a proposal in the
/// user's editor, and read back what was saved. The store lock stays held meanwhile, so the
/// conflict cannot change under the editor.
///
/// The file opens with comment lines (`//`, stripped before parsing; JSON has no comments, and no
/// line of JSON starts with `//`) that show the base, client and server copies, so the user
/// decides with all three in view. A file saved unchanged, or emptied, resolves nothing.
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
        let conflictFile = store.displayPath(store.layout.conflict(c.table, c.id))
        let file = try Editor.temporaryFile(ctx.environment, label: short)
        let proposal = ResolvedCopy.proposal(c, operation: ops.first, item: item)
        let written = Array(EditorText.render(c, proposal: proposal, clashing: clashing, conflictFile: conflictFile).utf8)
        do { try ctx.fs.writeFile(file, written, sync: false) } catch {
            throw CLIError(.failure, "cannot write \(file): \(error)", hint: "set TMPDIR to a writable folder")
        }
        ctx.console.err("\(short): \(c.kindDescription); \(clashing)")
        ctx.console.err("editing the proposed resolution in \(file) (quit without changing it, or save an empty file, to abort)")
        ctx.console.flush()

        let editor = Editor.command(ctx.environment)
        let status = Editor.run(editor, file: file, environment: ctx.environment)
        guard status == 0 else {
            try? ctx.fs.removeFile(file)
            let what = status.map { "exited with status \($0)" } ?? "could not be run"
            throw CLIError(.failure, "the editor '\(editor)' \(what); nothing changed",
                           hint: "set EDITOR to your editor, or write 'resolved' in \(conflictFile)")
        }
        let bytes: [UInt8]
        do { bytes = try ctx.fs.readFile(file) ?? [] } catch {
            throw CLIError(.failure, "cannot read \(file): \(error); nothing changed", hint: "run 'todo resolve \(short) --edit' again")
        }
        let again = "run 'todo resolve \(short) --edit' again"
        if bytes == written {
            try? ctx.fs.removeFile(file)
            throw CLIError(.failure, "the proposal was not changed: nothing resolved, nothing changed",
                           hint: "\(again) and save your resolution (to take the proposal as it is, delete its first line), or use --use-client, --use-server or --merge")
        }
        let text = EditorText.strip(bytes)
        if text.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
            try? ctx.fs.removeFile(file)
            throw CLIError(.failure, "the resolution is empty: aborted, nothing changed",
                           hint: "\(again), or use --use-client, --use-server or --merge")
        }
        let value: JSONValue
        do { value = try JSONValue.parse(text) } catch {
            throw CLIError(.failure, "\(file): invalid JSON: \(error); nothing changed",
                           hint: "your text is kept in \(file); fix it and \(again)")
        }
        if value.isNull {
            throw CLIError(.failure, "\(file): the resolution must be an object (the wanted item) or \"delete\", not null; nothing changed",
                           hint: "your text is kept in \(file); fix it and \(again)")
        }
        return EditedResolution(file: file, value: value)
    }

    /// The text was used: the temporary file goes.
    func discard(_ ctx: CommandContext) {
        try? ctx.fs.removeFile(file)
    }
}

/// The editor file of `resolve --edit`: comment lines showing the conflict's three copies, then
/// the proposal; and the stripping of those comments from what the user saved.
enum EditorText {
    static func render(_ c: Conflict, proposal: JSONValue, clashing: String, conflictFile: String) -> String {
        var lines = [
            "// Delete this line to take the proposal below as it is; saved unchanged, it resolves nothing.",
            "// Resolving \(c.id) (\(c.kindDescription); \(clashing)),",
            "// recorded in \(conflictFile).",
            "//",
            "// Edit the item below: it becomes the item here and, after 'todo push', on the server.",
            "// Every field of the copies must be there: give it the value to keep, or null to remove it.",
            "// Write \"delete\" instead of the object to delete the item. Lines starting with // are ignored.",
        ]
        for (name, copy, versioned) in [("base (the server copy your change started from)", c.base, true),
                                        ("client (yours)", c.client, false), ("server (the server copy now)", c.server, true)] {
            lines.append("//")
            lines += describe(name, copy, versioned: versioned)
        }
        var text = lines.joined(separator: "\n") + "\n"
        text += String(decoding: proposal.canonicalBytes(), as: UTF8.self)
        return text
    }

    /// One copy as comment lines: its heading (with its version), then its user fields.
    private static func describe(_ name: String, _ copy: Item?, versioned: Bool) -> [String] {
        guard let copy else { return ["// \(name): none"] }
        var heading = "// \(name)"
        var notes: [String] = []
        if versioned, let version = copy.system.version { notes.append("version \(version)") }
        if copy.isDeleted { notes.append("deleted") }
        if !notes.isEmpty { heading += ", " + notes.joined(separator: ", ") }
        let body = String(decoding: JSONValue.object(copy.fields).canonicalBytes(), as: UTF8.self)
        return [heading + ":"] + body.split(separator: "\n").map { "//   " + $0 }
    }

    /// The saved text without its comment lines (those whose first non-blank characters are `//`).
    static func strip(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let start = line.drop { $0 == 32 || $0 == 9 }
            if start.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) { continue }
            out += line
            out.append(UInt8(ascii: "\n"))
        }
        return out
    }
}
