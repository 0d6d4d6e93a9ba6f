import Testing
import TodoBasics
import TodoTestSupport

/// Issue 19 item 8: the built `todo` in a pseudo-terminal of our own (`PseudoTerminal`), as a
/// person runs it: the progress line of a push and of a pull, and the editor flow of
/// `resolve --edit`, whose editor gets the terminal. (Colour: `list` has none in this tree yet.)
@Suite(.serialized) struct TerminalTests {
    typealias Server = BinaryTutorialTests.ServerProcess
    static var todo: String { "'\(BinaryTutorialTests.build)/todo'" }

    @Test func pushAndPullDrawTheirProgressLineOnTheTerminal() throws {
        let server = try Server()
        #expect(server.todo("init --remote \(server.url)", in: "A").code == 0)
        for i in 0..<3 { #expect(server.todo("add item\(i)", in: "A").code == 0) }
        let push = PseudoTerminal.run("\(Self.todo) push", in: server.dir.sub("A"))
        #expect(push.code == 0, "\(push)")
        #expect(push.output.contains("\r\u{1B}[Kpush: 3/3 operations"), "\(push)")
        #expect(push.output.contains("\r\u{1B}[Kpushed 3 operations"), "the line is cleared before the report: \(push)")

        #expect(server.todo("init --remote \(server.url)", in: "B").code == 0)
        let pull = PseudoTerminal.run("\(Self.todo) pull", in: server.dir.sub("B"))
        #expect(pull.code == 0, "\(pull)")
        #expect(pull.output.contains("\r\u{1B}[Kpull todoitem: 3 rows"), "\(pull)")
        // Without a terminal: no progress, the same report.
        let quiet = server.todo("pull 2>&1", in: "B")
        #expect(!quiet.out.contains("\u{1B}"), "\(quiet)")
    }

    /// The editor runs on the terminal (stdin and stdout are it), and what it saves resolves.
    @Test func resolveEditRunsTheEditorOnTheTerminal() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/conflict", to: dir.path)
        let editor = dir.sub("editor.sh")
        let script = """
            if [ -t 0 ] && [ -t 1 ]; then echo "editor on a terminal: $(tty)"; fi
            printf '%s' '{"text": "from the editor", "complete": true}' > "$1"
            """
        try LocalFileSystem().writeFile(editor, Array(script.utf8), sync: false)
        let r = PseudoTerminal.run("\(Self.todo) resolve d265 --edit", in: dir.path,
                                   environment: ["EDITOR": "sh '\(editor)'", "TMPDIR": dir.path])
        #expect(r.code == 0, "\(r)")
        #expect(r.output.contains("editing the proposed resolution in \(dir.path)/todo-resolve-D265929E-"), "\(r)")
        #expect(r.output.contains("editor on a terminal: /dev/pts/"), "\(r)")
        #expect(r.output.contains("resolved D265929E using your resolution; run 'todo push' to publish\r\n"), "\(r)")
        let show = PseudoTerminal.run("\(Self.todo) show d265 --json", in: dir.path)
        #expect(show.output.contains("\"text\": \"from the editor\""), "\(show)")
    }
}
