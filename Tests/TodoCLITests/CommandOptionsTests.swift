import Testing
import TodoModel
import TodoSync
@testable import TodoCLI

/// Issue 16 item 3: each command reads its command line once, into typed options (`parse`), and
/// every usage error is found there, with the words the built binary prints. Nothing here opens a
/// store or runs a command.
@Suite struct CommandOptionsTests {
    static func parse<C: Command>(_ command: C.Type, _ words: String...) throws(CLIError) -> C.Options {
        try C.parse(commandLine: words)
    }

    /// The error `parse` throws for the words (nil when it throws none).
    static func refusal<C: Command>(_ command: C.Type, _ words: String...) -> CLIError? {
        do { _ = try C.parse(commandLine: words) } catch { return error }
        return nil
    }

    static func usage(_ message: String, _ command: String) -> CLIError { .usage(message, command: command) }

    // MARK: values and flags

    @Test func pushReadsItsTableJobsAndJSON() throws {
        #expect(try Self.parse(PushCommand.self) == PushCommand.Options(table: nil, jobs: nil, json: false))
        #expect(try Self.parse(PushCommand.self, "--jobs", "8", "--table=Tasks", "--json")
                == PushCommand.Options(table: "Tasks", jobs: 8, json: true))
        #expect(try Self.parse(PushCommand.self, "--jobs", "1024").jobs == 1024)
        for bad in ["0", "1025", "eight", ""] {
            #expect(Self.refusal(PushCommand.self, "--jobs", bad) == Self.usage("'--jobs \(bad)' must be a number from 1 to 1024", "push"))
        }
        #expect(Self.refusal(PushCommand.self, "Tasks") == Self.usage("unexpected argument 'Tasks'", "push"))
        #expect(Self.refusal(PushCommand.self, "--jobs", "2", "--jobs", "3") == Self.usage("option '--jobs' was given more than once", "push"))
    }

    /// Repeated values keep their order; a value's syntax is checked when it is read.
    @Test func listBuildsItsQueryFromFlagsValuesAndRepeatedOptions() throws {
        let plain = try Self.parse(ListCommand.self)
        #expect(plain.query.state == .pending && plain.query.output == .text && plain.query.limit == nil)
        #expect(plain.query.columns == ListColumn.standard && plain.color == .auto && plain.table == nil)

        let o = try Self.parse(ListCommand.self, "--all", "--where", "text~milk", "--where", "priority!=3", "--sort", "-updatedAt,text",
                               "--sort", "done", "--limit", "20", "--columns", "id,priority", "--color", "never", "--table", "Shop")
        #expect(o.query.state == .all)
        #expect(o.query.matches == [FieldMatch(field: "text", op: .contains, value: "milk"),
                                    FieldMatch(field: "priority", op: .notEquals, value: "3")])
        #expect(o.query.sort == [SortField(name: "updatedAt", descending: true), SortField(name: "text", descending: false),
                                 SortField(name: "done", descending: false)])
        #expect(o.query.limit == 20)
        #expect(o.query.columns == [.id, .field("priority")])
        #expect(o.color == .never && o.table == "Shop")
        #expect(try Self.parse(ListCommand.self, "--done", "--json-lines").query.state == .done)
        #expect(try Self.parse(ListCommand.self, "--json-lines").query.output == .jsonLines)
        #expect(try Self.parse(ListCommand.self, "--json").query.output == .json)
        #expect(try Self.parse(ListCommand.self, "--color", "always").color == .always)
    }

    @Test func listRefusesEachBadValueInItsParse() {
        #expect(Self.refusal(ListCommand.self, "--done", "--all") == Self.usage("--done and --all exclude each other", "list"))
        #expect(Self.refusal(ListCommand.self, "--pending", "--done") == Self.usage("--pending and --done exclude each other", "list"))
        #expect(Self.refusal(ListCommand.self, "--where", "text") == CLIError(.usage, "--where 'text' has no operator", hint: ListQuery.whereHint))
        #expect(Self.refusal(ListCommand.self, "--sort", "text,") == CLIError(.usage, "--sort 'text,' has an empty field name", hint: ListQuery.sortHint))
        #expect(Self.refusal(ListCommand.self, "--limit", "0")
                == CLIError(.usage, "--limit '0' is not a number of items", hint: "give a whole number of 1 or more, e.g. --limit 20"))
        #expect(Self.refusal(ListCommand.self, "--json", "--json-lines") == Self.usage("--json and --json-lines exclude each other", "list"))
        #expect(Self.refusal(ListCommand.self, "--json", "--columns", "id")
                == CLIError(.usage, "--columns chooses columns of the text form; JSON output always holds whole items",
                            hint: "drop --columns, or pick fields from the JSON with a tool such as jq"))
        #expect(Self.refusal(ListCommand.self, "--columns", "id,,text")
                == CLIError(.usage, "--columns 'id,,text' has an empty column name", hint: ListQuery.columnsHint))
        #expect(Self.refusal(ListCommand.self, "--color", "sometimes")
                == CLIError(.usage, "--color 'sometimes' is not a choice", hint: "give --color auto (colour on a terminal), always or never"))
        #expect(Self.refusal(ListCommand.self, "milk") == Self.usage("unexpected argument 'milk'", "list"))
    }

    // MARK: positionals and options that exclude each other

    @Test func editTurnsItsOptionsIntoOrderedAssignments() throws {
        let o = try Self.parse(EditCommand.self, "3", "--text", "Buy oat milk", "--complete", "--set", "priority=2",
                               "--set", "note=\"soon\"", "--unset", "due", "--table", "Shop", "--json")
        #expect(o.id == "3" && o.table == "Shop" && o.json)
        guard case .change(let assignments) = o.action else { Issue.record("not a change: \(o.action)"); return }
        #expect(assignments.map { "\($0.0)=\($0.1.compactText)" }
                == ["text=\"Buy oat milk\"", "complete=true", "priority=2", "note=\"soon\"", "due=null"])
        guard case .adopt = try Self.parse(EditCommand.self, "a1b2", "--adopt").action else { Issue.record("not adopt"); return }
        guard case .discard = try Self.parse(EditCommand.self, "a1b2", "--discard").action else { Issue.record("not discard"); return }
    }

    @Test func editRefusesWhatCannotBeDone() {
        #expect(Self.refusal(EditCommand.self, "--text", "x") == Self.usage("missing ID", "edit"))
        #expect(Self.refusal(EditCommand.self, "1", "2", "--complete") == Self.usage("unexpected argument '2'", "edit"))
        #expect(Self.refusal(EditCommand.self, "1") == Self.usage("nothing to change; give --text, --complete, --incomplete, --set or --unset", "edit"))
        #expect(Self.refusal(EditCommand.self, "1", "--complete", "--incomplete") == Self.usage("--complete and --incomplete exclude each other", "edit"))
        #expect(Self.refusal(EditCommand.self, "1", "--adopt", "--discard") == Self.usage("--adopt and --discard exclude each other", "edit"))
        #expect(Self.refusal(EditCommand.self, "1", "--discard", "--unset", "due") == Self.usage("--discard takes no other change; --unset excludes it", "edit"))
        #expect(Self.refusal(EditCommand.self, "1", "--adopt", "--incomplete") == Self.usage("--adopt takes no other change; --incomplete excludes it", "edit"))
        #expect(Self.refusal(EditCommand.self, "1", "--set", "priority") == CLIError(.usage, "'priority' is not FIELD=JSON",
                                                                                     hint: "for example: --set priority=3 or --set 'note=\"call Bob\"'"))
        // Not usage errors (exit 1), as before: a value the store would refuse.
        #expect(Self.refusal(EditCommand.self, "1", "--set", "note=call Bob")
                == CLIError(.failure, "the value of 'note' is not JSON: call Bob", hint: "quote strings as JSON: --set 'note=\"call Bob\"'"))
        #expect(Self.refusal(EditCommand.self, "1", "--unset", "id")
                == CLIError(.failure, "\"id\" is reserved: the identity is 'id' and cannot be set as a field", hint: "choose another field name"))
        #expect(Self.refusal(EditCommand.self, "1", "--frobnicate")?.message == "unknown option '--frobnicate' for 'todo edit'")
    }

    @Test func doneUndoneAndRmTakeOneID() throws {
        #expect(try Self.parse(DoneCommand.self, "4", "--json") == ItemOptions(id: "4", table: nil, json: true))
        #expect(try Self.parse(RemoveCommand.self, "id:12", "--table", "Shop") == ItemOptions(id: "id:12", table: "Shop", json: false))
        #expect(Self.refusal(UndoneCommand.self) == Self.usage("missing ID", "undone"))
        #expect(Self.refusal(RemoveCommand.self, "1", "2") == Self.usage("unexpected argument '2'", "rm"))
    }

    @Test func addKeepsItsTextIDAndFields() throws {
        let o = try Self.parse(AddCommand.self, "Buy milk", "--id", "milk-1", "--set", "priority=3", "--set", "priority=4")
        #expect(o.text == "Buy milk" && o.id == "milk-1" && o.table == nil && !o.json)
        #expect(o.assignments.map { "\($0.0)=\($0.1.compactText)" } == ["priority=3", "priority=4"])
        #expect(try Self.parse(AddCommand.self, "Buy milk").id == nil, "a new UUID is made when it runs")
        #expect(Self.refusal(AddCommand.self) == Self.usage("missing TEXT (the item's text)", "add"))
        #expect(Self.refusal(AddCommand.self, "x", "--id", "a/b")
                == CLIError(.failure, "invalid id: id contains '/'; ids cannot contain \" + ? \\ / or `", hint: "choose another id"))
    }

    @Test func resolveTakesIDsOrAllAndOneWay() throws {
        #expect(try Self.parse(ResolveCommand.self, "a1", "b2", "--use-server")
                == ResolveCommand.Options(ids: ["a1", "b2"], all: false, strategy: .useServer, table: nil))
        #expect(try Self.parse(ResolveCommand.self, "--all", "--merge", "--table", "Shop")
                == ResolveCommand.Options(ids: [], all: true, strategy: .merge, table: "Shop"))
        #expect(try Self.parse(ResolveCommand.self, "a1").strategy == .written)
        #expect(try Self.parse(ResolveCommand.self, "a1", "--edit").strategy == .edit)
        #expect(Self.refusal(ResolveCommand.self, "a1", "--use-client", "--merge") == Self.usage("--use-client and --merge exclude each other", "resolve"))
        #expect(Self.refusal(ResolveCommand.self) == Self.usage("missing ID (the conflicts to resolve), or --all", "resolve"))
        #expect(Self.refusal(ResolveCommand.self, "a1", "--all") == Self.usage("give conflict ids or --all, not both", "resolve"))
        #expect(Self.refusal(ResolveCommand.self, "a1", "b2", "--edit") == Self.usage("--edit resolves one conflict at a time; give one ID", "resolve"))
    }

    // MARK: subcommands and modes

    @Test func pullChecksItsQueryBeforeAnyRequest() throws {
        guard case .pull(let pull) = try Self.parse(PullCommand.self, "--table", "Shop", "--query-id", "mine", "--filter", "complete eq false", "--full").action
        else { Issue.record("not a pull"); return }
        #expect(pull.table == "Shop" && pull.queryID == "mine" && pull.filter == "complete eq false" && pull.full && !pull.allTables)
        guard case .verify(let table) = try Self.parse(PullCommand.self, "--verify", "--json").action else { Issue.record("not --verify"); return }
        #expect(table == nil)
        #expect(Self.refusal(PullCommand.self, "--verify", "--full") == Self.usage("--verify reads the whole table; it does not take --full", "pull"))
        #expect(Self.refusal(PullCommand.self, "--all-tables", "--table", "Shop") == Self.usage("--all-tables pulls every table; it does not take --table", "pull"))
        #expect(Self.refusal(PullCommand.self, "--query-id", "no spaces")
                == Self.usage("'no spaces' is not a query id; use 1 to 64 characters of A-Z a-z 0-9 . _ -", "pull"))
        #expect(Self.refusal(PullCommand.self, "--filter", "complete eq")?.message.hasPrefix("the filter does not parse: ") == true)
    }

    /// `todo remote` alone shows the settings and, as before, ignores the options of `set`.
    @Test func remoteShowsOrSets() throws {
        guard case .show = try Self.parse(RemoteCommand.self, "--app-key", "k", "--app-key-file", "f").action else { Issue.record("not show"); return }
        guard case .set(let set) = try Self.parse(RemoteCommand.self, "set", "http://example.test/", "--page-size", "200",
                                                  "--protocol", "mobile-services", "--token-file", "t", "--ca-file", "").action
        else { Issue.record("not set"); return }
        #expect(set == RemoteCommand.Options.Settings(url: "http://example.test", generation: .mobileServices, pageSize: 200,
                                                      appKey: AppKeyOption(), token: TokenOption(file: "t"), caFile: CAFileOption(file: "")))
        #expect(Self.refusal(RemoteCommand.self, "get") == Self.usage("unknown subcommand 'get'; use 'todo remote' or 'todo remote set URL'", "remote"))
        #expect(Self.refusal(RemoteCommand.self, "set", "--page-size", "0") == Self.usage("'--page-size 0' must be 1 to 1000", "remote"))
        #expect(Self.refusal(RemoteCommand.self, "set", "--protocol", "v3")
                == Self.usage("'--protocol v3' is not a protocol; use mobile-apps or mobile-services", "remote"))
        #expect(Self.refusal(RemoteCommand.self, "set", "--app-key", "k", "--app-key-file", "f")
                == Self.usage("give the app key once: --app-key or --app-key-file, not both", "remote"))
    }

    /// Files named by options are only named here: they are read when the command runs.
    @Test func cloneAndInitNameTheirReplica() throws {
        let clone = try Self.parse(CloneCommand.self, "https://example.test/", "copy", "--page-size", "50", "--table", "Shop",
                                   "--app-key-file", "key.txt")
        #expect(clone.directory == "copy" && clone.pageSize == 50 && !clone.json)
        #expect(clone.replica == ReplicaOptions(remote: "https://example.test", generation: .mobileApps, table: "Shop",
                                                appKey: AppKeyOption(key: nil, file: "key.txt"), token: TokenOption(), caFile: CAFileOption()))
        #expect(try Self.parse(CloneCommand.self, "http://h").pageSize == 1000)
        #expect(Self.refusal(CloneCommand.self) == Self.usage("missing URL", "clone"))
        #expect(Self.refusal(CloneCommand.self, "http://h", "d", "e") == Self.usage("unexpected argument 'e'", "clone"))
        #expect(Self.refusal(CloneCommand.self, "http://h", "--page-size", "1001") == Self.usage("'--page-size 1001' must be 1 to 1000", "clone"))
        #expect(Self.refusal(CloneCommand.self, "ftp://h")?.kind == .usage)

        let initOptions = try Self.parse(InitCommand.self, "--remote", "http://h/", "--json")
        #expect(initOptions.directory == "." && initOptions.json && initOptions.replica.remote == "http://h")
        #expect(initOptions.replica.table == TableName.defaultTable)
    }

    @Test func tableQueryAndCompletionChooseASubcommand() throws {
        #expect(try Self.parse(TableCommand.self, "list") == .list)
        #expect(try Self.parse(TableCommand.self, "rm", "Shop", "--force") == .remove(table: "Shop", force: true))
        #expect(Self.refusal(TableCommand.self, "list", "--force") == Self.usage("--force goes with 'table rm'", "table"))
        #expect(Self.refusal(TableCommand.self, "rm") == Self.usage("missing NAME (the table to remove)", "table"))
        #expect(try Self.parse(QueryCommand.self, "rm", "mine", "--table", "Shop") == QueryCommand.Options(action: .remove(id: "mine"), table: "Shop"))
        #expect(try Self.parse(QueryCommand.self, "list") == QueryCommand.Options(action: .list, table: nil))
        #expect(try Self.parse(CompletionCommand.self, "fish") == .fish)
        let wrong = Self.refusal(CompletionCommand.self, "bsh")
        #expect(wrong?.message == "no completion for 'bsh'; todo has bash, zsh and fish")
        #expect(wrong?.hint?.contains("todo completion bash") == true)
    }

    /// Each parse asks only for the options its command declares (`ParsedArguments` stops at any
    /// other name), on every path these command lines reach: each option alone, after the
    /// positionals each command takes.
    @Test func everyParseAsksOnlyForDeclaredOptions() {
        let leads: [[String]] = [[], ["x"], ["x", "y"], ["set"], ["set", "http://h"], ["list"], ["rm", "x"], ["bash"], ["http://h"]]
        var reached = 0
        for command in CommandTable.all {
            for option in command.options {
                let words = option.kind == .flag ? [option.name] : [option.name, "1"]
                for lead in leads {
                    do { _ = try command.parse(commandLine: lead + words); reached += 1 } catch {}
                }
            }
        }
        #expect(reached > 100, "most of these command lines parse")
    }
}
