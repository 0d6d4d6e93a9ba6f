import Testing
import TodoBasics
import TodoTestSupport

/// `list --json` keeps its exact form, `--json-lines` and `export` give items as `jq -c` and
/// `task export` users expect, and the terminal form fits the terminal (issue 19 item 5,
/// issue 21 item 4), all through the built binary.
@Suite(.serialized) struct ListOutputTests {
    static let esc = "\u{1B}["

    @Test func jsonIsOneArrayOfWholeItemsAsBefore() {
        let f = ListFixture()
        defer { f.remove() }
        #expect(f.todo("list --done --json").out == """
            [
              {
                "complete": true,
                "id": "a1000000-0000-4000-8000-000000000002",
                "ms_createdAt": "2024-05-01T09:00:02.000Z",
                "ms_updatedAt": "2024-05-01T09:00:02.000Z",
                "ms_version": "AAAAAAAAAAE=",
                "priority": 1,
                "text": "Pay rent"
              }
            ]

            """)
        #expect(f.todo("list --where nosuch=1 --json").out == "[]\n")
        // Every item as `show --json` prints it, indented into one array, in list order.
        let ids = [ListFixture.buyMilk, ListFixture.payRent, ListFixture.callBob, ListFixture.water, ListFixture.local]
        let shown = ids.map { id in
            f.todo("show \(id) --json").out.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
        }
        #expect(f.todo("list --all --json").out == "[\n" + shown.joined(separator: ",\n") + "\n]\n")
    }

    @Test func jsonLinesIsOneCompactItemPerLine() {
        let f = ListFixture()
        defer { f.remove() }
        let r = f.todo("list --all --json-lines")
        #expect(r.code == 0)
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == 5 && r.out.hasSuffix("\n"))
        #expect(lines[1] == #"{"complete":true,"id":"a1000000-0000-4000-8000-000000000002","ms_createdAt":"2024-05-01T09:00:02.000Z","ms_updatedAt":"2024-05-01T09:00:02.000Z","ms_version":"AAAAAAAAAAE=","priority":1,"text":"Pay rent"}"#)
        #expect(lines[4].hasPrefix(#"{"complete":false,"id":"d4000000-0000-4000-8000-000000000005","#))
        #expect(f.todo("list --where nosuch=1 --json-lines").out == "")
        let both = f.todo("list --json --json-lines")
        #expect(both.code == 2)
        #expect(both.err == "error: --json and --json-lines exclude each other\nhint: see 'todo list --help'\n")
    }

    @Test func exportPrintsEveryItemAsListAllDoes() {
        let f = ListFixture()
        defer { f.remove() }
        let export = f.todo("export")
        #expect(export.code == 0 && export.err == "")
        #expect(export.out == f.todo("list --all --json").out)
        #expect(f.todo("export --json-lines").out == f.todo("list --all --json-lines").out)
        #expect(f.todo("export --table todoitem").out == export.out)
        let missing = f.todo("export --table nosuch")
        #expect(missing.code == 1)
        #expect(missing.err == "error: no table 'nosuch' in this replica\nhint: tables here: todoitem; 'todo add --table nosuch' creates it\n")
        let extra = f.todo("export everything")
        #expect(extra.code == 2)
        #expect(extra.err == "error: unexpected argument 'everything'\nhint: see 'todo export --help'\n")
        #expect(f.todo("export --help").out.hasPrefix("usage: todo export [--table NAME] [--json-lines]\n"))
        #expect(f.todo("--help").out.contains("  export "))
    }

    /// On a terminal the text is cut to the width with an ellipsis; elsewhere lines stay whole.
    @Test func aTerminalGetsLinesCutToItsWidth() {
        let f = ListFixture()
        defer { f.remove() }
        let r = f.todo("list", env: "TODO_TEST_TERMINAL=70 NO_COLOR=1")
        #expect(r.out == """
            a1000000-0000-4000-8000-000000000001  [ ] Buy milk
            b200                                  [ ] Call Bob about the milk del…
            c300                                  [ ] Water plants
            d400                                  [ ] Local one  (pending insert)

            """)
        #expect(r.out.split(separator: "\n").allSatisfy { $0.count <= 70 })
        let plain = f.todo("list", env: "COLUMNS=20")
        #expect(plain.out.contains("Call Bob about the milk delivery schedule for next week\n"), "not a terminal: nothing is cut")
        let columns = f.todo("list --columns text,id", env: "TODO_TEST_TERMINAL=50 NO_COLOR=1")
        #expect(columns.out.hasPrefix("Buy milk      a1000000-0000-4000-8000-000000000001\nCall Bob ab…  b200\n"), "columns stay aligned: \(columns.out)")
    }

    /// A real pseudo-terminal (script(1)): TIOCGWINSZ gives the width, COLUMNS overrides it.
    @Test func aRealTerminalIsMeasured() {
        let f = ListFixture()
        defer { f.remove() }
        let bin = ProcessTests.binary
        func sh(_ command: String) -> (code: Int32, out: String, err: String) { ProcessTests.sh(command, in: f.dir.path) }
        let sized = sh("env -u TODO_TEST_TERMINAL script -qec \"stty cols 70; NO_COLOR=1 '\(bin)' list\" /dev/null")
        #expect(sized.out.contains("b200                                  [ ] Call Bob about the milk del…\r\n"), "\(sized)")
        let told = sh("env -u TODO_TEST_TERMINAL script -qec \"stty cols 200; COLUMNS=70 NO_COLOR=1 '\(bin)' list\" /dev/null")
        #expect(told.out.contains("Call Bob about the milk del…\r\n"), "\(told)")
        let coloured = sh("env -u TODO_TEST_TERMINAL -u NO_COLOR TERM=xterm script -qec \"'\(bin)' list --done\" /dev/null")
        #expect(coloured.out.contains(Self.esc + "1;35ma1000000-0000-4000-8000-000000000002" + Self.esc + "0m"), "\(coloured)")
    }

    @Test func colourHighlightsTheUniquePartOfIdsAndDimsDoneItems() {
        let f = ListFixture()
        defer { f.remove() }
        let env = "TODO_TEST_TERMINAL=200 NO_COLOR= TERM=xterm"
        let e = Self.esc
        #expect(f.todo("list --done", env: env).out == "\(e)1;35ma1000000-0000-4000-8000-000000000002\(e)0m  \(e)2m[x]\(e)0m \(e)2mPay rent\(e)0m\n")
        let lines = f.todo("list", env: env).out.split(separator: "\n").map(String.init)
        #expect(lines[1] == "\(e)1;35mb\(e)0m\(e)35m200\(e)0m" + String(repeating: " ", count: 34) + "[ ] Call Bob about the milk delivery schedule for next week",
                "one character tells b200 apart: it is the highlighted part")
        #expect(lines[3].hasSuffix("Local one  \(e)33m(pending insert)\(e)0m"))
        for quiet in ["NO_COLOR=1", "TERM=dumb NO_COLOR="] {
            #expect(!f.todo("list --all", env: "TODO_TEST_TERMINAL=200 " + quiet).out.contains(e), "\(quiet)")
        }
        #expect(!f.todo("list --all --color never", env: env).out.contains(e))
        #expect(f.todo("list --all --color always", env: "NO_COLOR=1").out.contains(e + "2mPay rent"), "always: piped and NO_COLOR too")
        #expect(!f.todo("list --all --color auto").out.contains(e), "auto: not a terminal")
        let bad = f.todo("list --color sometimes")
        #expect(bad.code == 2)
        #expect(bad.err == "error: --color 'sometimes' is not a choice\nhint: give --color auto (colour on a terminal), always or never\n")
    }

    /// Hand-edited item files are still listed as they are, marked, and warned about.
    @Test func handEditedFilesAreMarkedAndWarned() throws {
        let f = ListFixture()
        defer { f.remove() }
        let path = f.dir.sub(".todo/tables/todoitem/items/\(ListFixture.local).json")
        let text = String(decoding: try #require(try LocalFileSystem().readFile(path)), as: UTF8.self)
        try LocalFileSystem().writeFile(path, Array(text.replacingOccurrences(of: "Local one", with: "Local two").utf8), sync: false)
        let r = f.todo("list")
        #expect(r.code == 0)
        #expect(r.out.hasSuffix("d400                                  [ ] Local two  (pending insert)  (edited by hand)\n"))
        #expect(r.err.hasPrefix("warning: .todo/tables/todoitem/items/\(ListFixture.local).json was edited by hand"), "\(r.err)")
        #expect(f.todo("list --json-lines").out.contains("Local two"))
    }
}

