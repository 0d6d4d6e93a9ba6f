import Testing
import TodoBasics
import TodoTestSupport

/// Issue 19 item 5: `list` a person can use, through the built binary: filters, sort, limit,
/// columns, and every bad value refused with what is wrong and what to do.
@Suite(.serialized) struct ListOptionsTests {
    static let milk = "a1000000-0000-4000-8000-000000000001  [ ] Buy milk"
    static let bob = "b200                                  [ ] Call Bob about the milk delivery schedule for next week"
    static let water = "c300                                  [ ] Water plants"
    static let local = "d400                                  [ ] Local one  (pending insert)"
    static let rent = "a1000000-0000-4000-8000-000000000002  [x] Pay rent"

    /// The same rows when no listed id needs more than 4 characters (the column is as wide as its widest).
    static func narrow(_ line: String) -> String { String(line.prefix(4)) + "  " + line.dropFirst(38) }
    static func lines(_ l: String...) -> String { l.joined(separator: "\n") + "\n" }
    static func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: width - s.count) }

    @Test func theDefaultIsUnchangedIncompleteItemsOldestFirst() {
        let f = ListFixture()
        defer { f.remove() }
        let r = f.todo("list")
        #expect(r.code == 0 && r.err == "", "\(r)")
        #expect(r.out == Self.lines(Self.milk, Self.bob, Self.water, Self.local))
        #expect(f.todo("list --pending").out == r.out)
    }

    @Test func doneAndAllChooseTheState() {
        let f = ListFixture()
        defer { f.remove() }
        #expect(f.todo("list --done").out == "a1000000-0000-4000-8000-000000000002  [x] Pay rent\n")
        #expect(f.todo("list --all").out == Self.lines(Self.milk, Self.rent, Self.bob, Self.water, Self.local))
        let both = f.todo("list --done --all")
        #expect(both.code == 2)
        #expect(both.err == "error: --done and --all exclude each other\nhint: see 'todo list --help'\n")
        #expect(f.todo("list --pending --done").err.hasPrefix("error: --pending and --done exclude each other\n"))
    }

    @Test func whereMatchesFieldsEqualNotEqualAndContaining() {
        let f = ListFixture()
        defer { f.remove() }
        #expect(f.todo("list --where priority=2").out == Self.lines(Self.milk))
        #expect(f.todo("list --where text~MILK").out == Self.lines(Self.milk, Self.bob), "contains, ignoring case")
        #expect(f.todo("list --where priority!=2").out == Self.lines(Self.narrow(Self.bob), Self.narrow(Self.water), Self.narrow(Self.local)), "a missing field is not equal")
        #expect(f.todo("list --where text~milk --where priority=3").out == Self.lines(Self.narrow(Self.bob)), "several must all hold")
        #expect(f.todo("list --all --where done=true").out == Self.lines(Self.rent), "done is the complete field")
        #expect(f.todo("list --where 'id=\(ListFixture.water)'").out == Self.lines(Self.narrow(Self.water)))
        #expect(f.todo("list --where createdAt~09:00:03").out == Self.lines(Self.narrow(Self.bob)))
        #expect(f.todo("list --where 'text=Buy milk'").out == Self.lines(Self.milk), "strings compare without quotes")
        #expect(f.todo("list --where nosuch=1").out == "", "no item has it: nothing listed")
    }

    @Test func badWhereSaysWhatIsWrongAndHowToWriteIt() {
        let f = ListFixture()
        defer { f.remove() }
        let hint = "hint: write FIELD=VALUE (equal), FIELD!=VALUE (not equal) or FIELD~TEXT (contains, ignoring case), e.g. --where text~milk\n"
        let none = f.todo("list --where priority")
        #expect(none.code == 2)
        #expect(none.err == "error: --where 'priority' has no operator\n" + hint)
        #expect(f.todo("list --where =2").err == "error: --where '=2' names no field\n" + hint)
        #expect(f.todo("list --where '!=2'").err == "error: --where '!=2' names no field\n" + hint)
        #expect(f.todo("list --where").err == "error: option '--where' needs a value (--where FIELD=VALUE)\nhint: see 'todo list --help'\n")
    }

    @Test func sortOrdersByFieldsThenOldestFirst() {
        let f = ListFixture()
        defer { f.remove() }
        #expect(f.todo("list --sort priority").out == Self.lines(Self.milk, Self.bob, Self.water, Self.local), "no priority: last")
        #expect(f.todo("list --sort -priority").out == Self.lines(Self.bob, Self.milk, Self.water, Self.local), "missing last when descending too")
        #expect(f.todo("list --sort text").out == Self.lines(Self.milk, Self.bob, Self.local, Self.water))
        #expect(f.todo("list --sort=-text").out == Self.lines(Self.water, Self.local, Self.bob, Self.milk))
        #expect(f.todo("list --all --sort done,-priority").out == Self.lines(Self.bob, Self.milk, Self.water, Self.local, Self.rent), "commas: several keys")
        #expect(f.todo("list --all --sort done --sort -priority").out == Self.lines(Self.bob, Self.milk, Self.water, Self.local, Self.rent), "repeated: several keys")
        #expect(f.todo("list --sort -createdAt --limit 2").out == Self.lines(Self.water, Self.bob), "createdAt: local-only items have none")
    }

    @Test func badSortSaysHowToWriteIt() {
        let f = ListFixture()
        defer { f.remove() }
        let hint = "hint: give FIELD or -FIELD (descending), several with commas, e.g. --sort -updatedAt,text\n"
        #expect(f.todo("list --sort -").err == "error: --sort '-' has an empty field name\n" + hint)
        let r = f.todo("list --sort text,")
        #expect(r.code == 2)
        #expect(r.err == "error: --sort 'text,' has an empty field name\n" + hint)
    }

    @Test func limitCutsTheListAfterSorting() {
        let f = ListFixture()
        defer { f.remove() }
        #expect(f.todo("list --limit 2").out == Self.lines(Self.milk, Self.bob))
        #expect(f.todo("list --limit 9").out == Self.lines(Self.milk, Self.bob, Self.water, Self.local))
        #expect(f.todo("list --all --json --limit 1").out.split(separator: "\n").filter { $0.hasPrefix("    \"id\"") }.count == 1)
        for bad in ["0", "-3", "two", "1.5"] {
            let r = f.todo("list --limit=\(bad)")
            #expect(r.code == 2)
            #expect(r.err == "error: --limit '\(bad)' is not a number of items\nhint: give a whole number of 1 or more, e.g. --limit 20\n")
        }
    }

    @Test func columnsChooseWhatIsShownPaddedToTheWidest() {
        let f = ListFixture()
        defer { f.remove() }
        #expect(f.todo("list --columns text,priority").out == Self.lines(
            Self.pad("Buy milk", 55) + "  2",
            "Call Bob about the milk delivery schedule for next week  3",
            "Water plants",
            Self.pad("Local one", 55) + "  " + "" + "  (pending insert)"), "padding only before something shown")
        #expect(f.todo("list --all --columns done,id,updatedAt --limit 2").out == Self.lines(
            "[ ] a1000000-0000-4000-8000-000000000001  2024-05-01T09:00:01.000Z",
            "[x] a1000000-0000-4000-8000-000000000002  2024-05-01T09:00:02.000Z"))
        let empty = f.todo("list --columns id,,text")
        #expect(empty.code == 2)
        #expect(empty.err == "error: --columns 'id,,text' has an empty column name\nhint: give column names with commas, e.g. --columns id,done,text,priority (id, done, text, or any field)\n")
        let json = f.todo("list --json --columns id")
        #expect(json.code == 2)
        #expect(json.err == "error: --columns chooses columns of the text form; JSON output always holds whole items\nhint: drop --columns, or pick fields from the JSON with a tool such as jq\n")
    }

    @Test func optionsCombine() {
        let f = ListFixture()
        defer { f.remove() }
        let r = f.todo("list --all --where text~l --sort -priority --limit 3 --columns id,priority")
        #expect(r.out == Self.lines(Self.pad("b200", 36) + "  3", "a1000000-0000-4000-8000-000000000001  2", "c300"))
    }

    @Test func helpNamesEveryOption() {
        let f = ListFixture()
        defer { f.remove() }
        let help = f.todo("list --help").out
        for option in ["--pending", "--done", "--all", "--where FIELD=VALUE...", "--sort [-]FIELD...", "--limit N", "--columns LIST",
                       "--color WHEN", "--table NAME", "--json", "--json-lines"] {
            #expect(help.contains("  " + option + " "), "\(option) in:\n\(help)")
        }
        #expect(help.hasPrefix("usage: todo list [--pending|--done|--all] [--where FIELD=VALUE]... [--sort [-]FIELD]... [--limit N] [--columns LIST] [--color WHEN] [--table NAME] [--json|--json-lines]\n"))
    }

    @Test func aTableThatIsNotThereIsNamed() {
        let f = ListFixture()
        defer { f.remove() }
        let r = f.todo("list --table nosuch")
        #expect(r.code == 1)
        #expect(r.err == "error: no table 'nosuch' in this replica\nhint: tables here: todoitem; 'todo add --table nosuch' creates it\n")
    }
}
