import Testing
import TodoBasics
import TodoTestSupport

/// Issue 21 item 3: the index of pending operations by item (`.todo/cache/pending`) is derived
/// from the operation files, which stay the truth: an operation file deleted or added by hand is
/// never missed by a local change, and `todo doctor` rebuilds an index that is stale or wrong.
@Suite struct PendingIndexTests {
    static let ops = ".todo/operations"

    /// A store with items a and b queued for insertion (the index kept by the commands).
    static func store() -> (TempDirectory, CLIHarness) {
        let dir = TempDirectory()
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        #expect(cli.run("add", "first", "--id", "a").code == 0)
        #expect(cli.run("add", "second", "--id", "b").code == 0)
        return (dir, cli)
    }

    static func operationFile(_ dir: TempDirectory, _ id: String) throws -> String {
        let names = try #require(try LocalFileSystem().listDirectory(dir.path + "/" + ops))
        return try #require(names.first { $0.hasSuffix(".todoitem.\(id).json") }, "\(names)")
    }

    @Test func anOperationFileAddedByHandIsSeenByTheNextChange() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let name = try Self.operationFile(dir, "a")
        // Taken out by hand (doctor rebuilds the index without it, a change keeps it), then put back by hand.
        try fs.rename(dir.path + "/\(Self.ops)/\(name)", to: dir.path + "/kept.json")
        #expect(cli.run("doctor").code == 0)  // an unsynced item with nothing queued is no problem
        #expect(cli.run("add", "third", "--id", "c").code == 0)
        try fs.rename(dir.path + "/kept.json", to: dir.path + "/\(Self.ops)/\(name)")

        let show = cli.run("show", "a")
        #expect(show.code == 0 && show.out.contains("pending:   insert #1"), "\(show)")
        let edit = cli.run("edit", "a", "--text", "changed")
        #expect(edit.out == "updated a (folded into pending insert #1)\n", "\(edit)")
        #expect(try fs.listDirectory(dir.path + "/" + Self.ops)?.filter { $0.hasSuffix(".a.json") }.count == 1)
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
    }

    @Test func anOperationFileDeletedByHandIsNotLookedFor() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        try LocalFileSystem().removeFile(dir.path + "/\(Self.ops)/" + (try Self.operationFile(dir, "a")))
        let show = cli.run("show", "a")
        #expect(show.code == 0 && !show.out.contains("pending:"), "\(show)")
        // With its insert gone, the item is an unsynced copy with nothing queued: an edit queues an update.
        let edit = cli.run("edit", "a", "--text", "changed")
        #expect(edit.code == 0 && edit.out.contains("update #"), "\(edit)")
    }

    /// An index that vouches for the folder but is wrong (here: edited to forget an operation)
    /// is reported by doctor and rebuilt; a command never trusts it after that.
    @Test func doctorReportsAndRebuildsAWrongIndex() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let name = try Self.operationFile(dir, "a")
        let pending = dir.path + "/.todo/cache/pending"
        let bucket = try #require(try fs.listDirectory(pending)?.first { name in
            name.count == 3 && ((try? fs.readFile(pending + "/" + name)).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self).contains(".a.json") } ?? false)
        })
        try fs.writeFile(pending + "/" + bucket, Array(#"{"operations": []}"#.utf8), sync: false)

        let doctor = cli.run("doctor")
        #expect(doctor.code == 0, "\(doctor)")
        #expect(doctor.out.contains("note: .todo/cache/pending/\(bucket): the index of pending operations misses .todo/operations/\(name)"
                                    + " (added by hand while todo wrote?); rebuilt from the operation files\n"), "\(doctor)")
        #expect(cli.run("doctor").out.hasPrefix("ok: "), "rebuilt")
        #expect(cli.run("edit", "a", "--text", "changed").out == "updated a (folded into pending insert #1)\n")
    }

    @Test func aDamagedBucketIsReportedAndRebuilt() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let pending = dir.path + "/.todo/cache/pending"
        let bucket = try #require(try fs.listDirectory(pending)?.first { $0.count == 3 })
        try fs.writeFile(pending + "/" + bucket, Array("not json".utf8), sync: false)
        let doctor = cli.run("doctor")
        #expect(doctor.out.contains("note: .todo/cache/pending/\(bucket): damaged: not {\"operations\": [file names]}; rebuilt from the operation files\n"),
                "\(doctor)")
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
    }

    /// Deleting the cache costs one listing: the next change rebuilds it.
    @Test func aDeletedIndexIsRebuiltByTheNextChange() throws {
        let (dir, cli) = Self.store()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let pending = dir.path + "/.todo/cache/pending"
        for name in try fs.listDirectory(pending) ?? [] { try fs.removeFile(pending + "/" + name) }
        let edit = cli.run("edit", "b", "--text", "changed")
        #expect(edit.out == "updated b (folded into pending insert #2)\n", "\(edit)")
        #expect(fs.fileExists(pending + "/stamp"))
        #expect(cli.run("doctor").out.hasPrefix("ok: "))
    }
}

/// A change prints the item's short id from the one id closest to it (issue 21), which must be
/// what `list` shows among all the table's ids, pending deletes (from the index) included.
@Suite struct ClosestShortIDTests {
    @Test func aChangePrintsTheShortIDListShows() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let cli = CLIHarness(directory: dir.path)
        #expect(cli.run("init").code == 0)
        let ids = ["abcdef01", "abcdef02", "abcxyz", "q1234567", "MixedCase1", "abcdefgh0", "abc"]
        for id in ids { #expect(cli.run("add", "item \(id)", "--id", id).code == 0) }
        // `list` cuts every id against all the others: "<short>  [ ] item <id>  (pending insert)".
        var listed: [String: String] = [:]
        for line in cli.run("list", "--all").out.split(separator: "\n") {
            let words = line.split(separator: " ")
            if let at = words.firstIndex(of: "item"), at + 1 < words.count { listed[String(words[at + 1])] = String(words[0]) }
        }
        #expect(listed.count == ids.count, "\(listed)")
        for id in ids {
            let short = listed[id] ?? "?"
            #expect(cli.run("edit", id, "--text", "item \(id)", "--set", "n=1").out.hasPrefix("updated \(short) ("), "\(id): list shows \(short)")
        }
    }

    /// A synced item removed here is known only by its pending delete: an id sharing 7 characters
    /// with it is cut at 8, as `list` cuts it.
    @Test func aPendingDeleteCountsForShortIDs() {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let cli = CLIHarness(directory: dir.path)
        let ids = cli.run("list", "--all", "--json").out
        #expect(ids.lowercased().contains("d265929e-b17b-42d1-8fab-d0adf26486fa"), "\(ids)")
        #expect(cli.run("rm", "d265").code == 0)
        #expect(cli.run("add", "near", "--id", "d265929e-near").code == 0)
        let edit = cli.run("edit", "d265929e-near", "--text", "nearer")
        #expect(edit.out.hasPrefix("updated d265929e-n (folded into pending insert #"), "\(edit)")
    }
}
