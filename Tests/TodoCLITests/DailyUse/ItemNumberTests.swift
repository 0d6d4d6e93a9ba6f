import Testing
import TodoBasics
import TodoTestSupport

/// Issue 19 item 1: items get a short, stable number on this replica (as Taskwarrior's ids),
/// which every command that takes an id accepts. Numbers are never reused.
@Suite struct ItemNumberTests {
    static func store() -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        return (dir, cli)
    }

    @Test func addPrintsTheNumberAndEveryCommandTakesIt() {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        let add = cli.run("add", "Buy milk", "--id", "milk")
        #expect(add.code == 0 && add.out == "milk\n" && add.err == "added as number 1\n", "\(add)")
        #expect(cli.run("add", "Pay rent", "--id", "rent").err == "added as number 2\n")
        #expect(cli.run("show", "2").out.hasPrefix("id:        rent\n"))
        #expect(cli.run("edit", "2", "--text", "Pay the rent").out == "updated rent (folded into pending insert #2)\n")
        #expect(cli.run("done", "1").out == "completed milk (folded into pending insert #1)\n")
        #expect(cli.run("undone", "1").out == "reopened milk (folded into pending insert #1)\n")
        let diff = cli.run("diff", "2")
        #expect(diff.code == 0 && diff.out.contains("rent"), "\(diff)")
        let json = cli.run("edit", "1", "--text", "Buy oat milk", "--json")
        #expect(json.out.contains(#""number": 1"#) && json.out.contains(#""id": "milk""#), "\(json)")
        #expect(cli.run("rm", "1").out == "removed milk (its pending insert was never sent, so both are dropped)\n")
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
    }

    /// A deleted item's number is retired, not given again: `done 3` typed from an old listing
    /// never touches another item.
    @Test func numbersAreNeverReused() {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        cli.run("add", "a", "--id", "a")
        cli.run("add", "b", "--id", "b")
        #expect(cli.run("rm", "2").code == 0)
        let gone = cli.run("show", "2")
        #expect(gone.code == 1 && gone.err == """
            error: no such item 2: number 2 was given to b, which this replica no longer has
            hint: numbers are never reused; list the items with 'todo list --all'

            """, "\(gone)")
        #expect(cli.run("add", "c", "--id", "c").err == "added as number 3\n")
        #expect(cli.run("add", "b again", "--id", "b").err == "added as number 4\n", "an id that comes back gets a new number")
        #expect(cli.run("show", "4").out.contains("text:      \"b again\""))
        let none = cli.run("done", "9")
        #expect(none.code == 1 && none.err == "error: no such item 9\nhint: list the items with 'todo list --all'\n", "\(none)")
    }

    /// A bare number that is also an item's id is refused, naming both and how to say which.
    @Test func aNumberThatIsAlsoAnIdIsAmbiguous() {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        cli.run("add", "first", "--id", "2")  // number 1
        cli.run("add", "second", "--id", "zz")  // number 2
        let r = cli.run("done", "2")
        #expect(r.code == 1 && r.err == """
            error: '2' is ambiguous: it is the number of item zz, and the id of another item
            hint: say which: zz for number 2, or id:2 for the item whose id is 2

            """, "\(r)")
        #expect(cli.run("done", "id:2").out == "completed 2 (folded into pending insert #1)\n")
        #expect(cli.run("done", "zz").out == "completed zz (folded into pending insert #2)\n")
        // Number 1 is no id, and shorter than any shown id prefix: it is the number.
        #expect(cli.run("show", "1").out.hasPrefix("id:        2\n"))
    }

    /// From 4 digits on, a number can be a copied id prefix too: refused when it is both.
    @Test func aNumberThatStartsAnIdIsAmbiguous() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        cli.run("add", "first", "--id", "1234abcd")  // number 1
        cli.run("add", "second", "--id", "x")  // number 2
        // Number 1234 given to x by hand (as if 1,233 items had come and gone).
        let numbers = dir.path + "/.todo/tables/todoitem/numbers"
        let fs = LocalFileSystem()
        try fs.writeFile(numbers + "/000004", Array(#"{"numbers": {"1234": "x"}}"#.utf8), sync: false)
        try fs.writeFile(numbers + "/next", Array(#"{"next": 1235}"#.utf8), sync: false)
        let r = cli.run("show", "1234")
        #expect(r.code == 1 && r.err == """
            error: '1234' is ambiguous: it is the number of item x, and the start of 1 other id (1234abcd)
            hint: say which: x for number 1234, or more characters for the others

            """, "\(r)")
        #expect(cli.run("show", "1234a").out.hasPrefix("id:        1234abcd\n"))
        #expect(cli.run("show", "id:1234").out.hasPrefix("id:        1234abcd\n"))
        #expect(cli.run("doctor").code == 0)
    }

    /// A replica made before numbers existed (the fixture) numbers its items in id order at its
    /// first change of an item; later items follow.
    @Test func aReplicaWithoutNumbersIsNumberedAtItsFirstChange() {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("show", "1").err == "error: no such item 1\nhint: list the items with 'todo list --all'\n")
        #expect(cli.run("done", "d265").code == 0)
        let first = cli.run("show", "1")
        #expect(first.code == 0 && first.out.hasPrefix("id:         D265929E-B17B-42D1-8FAB-D0ADF26486FA\n"), "\(first)")
        #expect(cli.run("add", "new").err == "added as number 3\n")
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
    }

    /// `resolve` and `diff` take numbers too (the conflict fixture: d265 has a conflict).
    @Test func resolveAndDiffTakeNumbers() {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/conflict", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("add", "new").err == "added as number 3\n")  // numbers the fixture's items: d265 is 1
        let diff = cli.run("diff", "1")
        #expect(diff.code == 0 && diff.out.hasPrefix("todoitem/D265929E-B17B-42D1-8FAB-D0ADF26486FA  conflict"), "\(diff)")
        let none = cli.run("resolve", "2", "--use-server")
        #expect(none.code == 1 && none.err.contains("error: no conflict recorded for 2\n"), "\(none)")
        let r = cli.run("resolve", "1", "--use-server")
        #expect(r.code == 0 && r.out.contains("D265"), "\(r)")
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
    }

    @Test func doctorReportsADamagedNumbersFile() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        cli.run("add", "a", "--id", "a")
        try LocalFileSystem().writeFile(dir.path + "/.todo/tables/todoitem/numbers/000000", Array("{\"numbers\": [1]}".utf8), sync: false)
        let doctor = cli.run("doctor")
        #expect(doctor.code == 1 && doctor.err == "hint: restore or remove the files named above; 'todo doctor' again shows what is left\n",
                "\(doctor)")
        #expect(doctor.out.contains(
            #".todo/tables/todoitem/numbers/000000: expected {"numbers": {"<number>": "<id>", ...}}"#), "\(doctor)")
        let show = cli.run("show", "1")
        #expect(show.code == 1 && show.err.hasPrefix("error: .todo/tables/todoitem/numbers/000000"), "\(show)")
    }

    /// `table rm` takes the table's numbers with it.
    @Test func removingATableRemovesItsNumbers() {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        cli.run("add", "a", "--table", "typo")
        #expect(cli.run("table", "rm", "typo", "--force").code == 0)
        #expect(!LocalFileSystem().fileExists(dir.path + "/.todo/tables/typo"))
        #expect(cli.run("add", "a", "--table", "typo").err == "added as number 1\n")
    }
}
