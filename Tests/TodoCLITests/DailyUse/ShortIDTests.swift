import Testing
import TodoTestSupport

/// Issue 19 item 1: ids people can type. Shown ids are the shortest prefix no other id of the
/// table shares (at least 4 characters), and every shown id is accepted back.
@Suite struct ShortIDTests {
    /// A replica whose items share the first 8 characters of their ids, as two UUIDs can.
    static func twins() -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        let cli = CLIHarness(directory: dir.path)
        cli.run("init")
        cli.run("add", "first", "--id", "abcdef12-0000-4000-8000-000000000001")
        cli.run("add", "second", "--id", "abcdef12-0000-4000-8000-000000000002")
        cli.run("add", "third", "--id", "99990000-0000-4000-8000-000000000003")
        cli.run("add", "rent", "--id", "rent")
        cli.run("add", "rental", "--id", "rental")
        return (dir, cli)
    }

    @Test func listLogAndStatusShowTheShortestUniquePrefix() {
        let (dir, cli) = Self.twins()
        defer { dir.remove() }
        let list = cli.run("list")
        #expect(list.code == 0)
        #expect(list.out == """
            abcdef12-0000-4000-8000-000000000001  [ ] first  (pending insert)
            abcdef12-0000-4000-8000-000000000002  [ ] second  (pending insert)
            9999                                  [ ] third  (pending insert)
            rent                                  [ ] rent  (pending insert)
            renta                                 [ ] rental  (pending insert)

            """)
        let short = cli.run("status", "--short")
        #expect(short.out == """
            I  todoitem  abcdef12-0000-4000-8000-000000000001  #1
            I  todoitem  abcdef12-0000-4000-8000-000000000002  #2
            I  todoitem  9999  #3
            I  todoitem  rent  #4
            I  todoitem  renta  #5

            """)
        let log = cli.run("log")
        #expect(log.out.contains("  #3  insert  todoitem  9999  \"third\"\n"))
        #expect(log.out.contains("  #5  insert  todoitem  renta  \"rental\"\n"))
    }

    @Test func everyShownIdIsAcceptedBack() {
        let (dir, cli) = Self.twins()
        defer { dir.remove() }
        for (shown, text) in [("9999", "third"), ("rent", "rent"), ("renta", "rental"), ("ABCDEF12-0000-4000-8000-000000000002", "second")] {
            let r = cli.run("show", shown, "--json")
            #expect(r.code == 0, "\(shown): \(r)")
            #expect(r.out.contains("\"text\": \"\(text)\""), "\(shown): \(r.out)")
        }
    }

    @Test func anAmbiguousPrefixIsRefusedListingEveryCandidate() {
        let (dir, cli) = Self.twins()
        defer { dir.remove() }
        let r = cli.run("done", "abcdef12")
        #expect(r.code == 1)
        #expect(r.err == """
            error: id prefix 'abcdef12' is ambiguous: it matches 2 items (abcdef12-0000-4000-8000-000000000001, abcdef12-0000-4000-8000-000000000002)
            hint: give more characters of the id

            """)
        #expect(cli.run("log").out.contains("#6") == false, "the refusal changed nothing")
    }

    /// An item deleted here lives on only in its pending delete: its prefix still names it.
    @Test func aPrefixNamesAnItemKnownOnlyByItsPendingOperation() {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("rm", "d2a1").code == 0)
        let show = cli.run("show", "d2a1")
        #expect(show.code == 1)
        #expect(show.err.hasPrefix("error: no such item d2a1c3f0-0000-4000-8000-000000000002:"), "\(show.err)")  // found, and said to be deleted
        #expect(show.err.contains("it is deleted locally (pending delete)"), "\(show.err)")
    }

    /// A change prints the id as `list` shows it, so the line can be pasted into the next command.
    @Test func aChangeNamesTheItemByItsShortId() {
        let (dir, cli) = Self.twins()
        defer { dir.remove() }
        #expect(cli.run("done", "9999").out == "completed 9999 (folded into pending insert #3)\n")
        #expect(cli.run("done", "abcdef12-0000-4000-8000-000000000001").out
                == "completed abcdef12-0000-4000-8000-000000000001 (folded into pending insert #1)\n")
    }
}
