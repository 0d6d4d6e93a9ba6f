#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoModel
import TodoStore
import TodoTestSupport

/// `status` and `diff` look for hand edits in every item file, but read only the files that
/// changed since a scan found them clean (`.todo/cache/item-stamps`, as git's index): their cost
/// follows the change, not the store. Counted in file reads, never timed.
@Suite struct StatusStampTests {
    /// Reads of item files, through `CountingFileSystem`.
    final class ItemReads: Sendable {
        let fs = CountingFileSystem()
        var paths: [String] { fs.reads(containing: "/items/") }
        var count: Int { paths.count }
        func reset() { fs.reset() }
    }

    static let itemsDir = ".todo/tables/todoitem/items"

    /// A synced store of `count` items (no pending operation), whose files are older than any
    /// cache written from now on: file times are coarse (a clock tick), and a file from the same
    /// tick as the cache is read again every time (git's "racily clean" rule).
    static func store(items count: Int) throws -> (TempDirectory, CLIHarness, ItemReads) {
        let (dir, _) = try HandEditTests.synced()
        let store = try ConflictStores.open(dir.path)
        var tx = try store.transaction()
        for n in 0..<count {
            tx.putItem(Item(id: "item-\(n)", fields: ["text": .string("item \(n)")]), table: "todoitem")
        }
        try store.commit(tx)
        store.close()
        usleep(50_000)
        let reads = ItemReads()
        return (dir, CLIHarness(directory: dir.path, environment: ["TODO_RETRY_WAIT_SCALE": "0"], fs: reads.fs), reads)
    }

    static func itemFiles(_ dir: String) -> [String] {
        ((try? LocalFileSystem().listDirectory(dir + "/" + itemsDir)) ?? nil ?? []).filter { $0.hasSuffix(".json") }
    }

    @Test func statusReadsOnlyTheItemFilesThatChanged() throws {
        let (dir, cli, reads) = try Self.store(items: 40)
        defer { dir.remove() }
        let total = Self.itemFiles(dir.path).count
        #expect(total == 42)

        #expect(cli.run("status").code == 0)
        #expect(reads.count == total, "the first scan reads every item file")
        reads.reset()
        #expect(cli.run("status").code == 0)
        #expect(cli.run("diff").code == 0)
        #expect(reads.count == 0, "unchanged files are not read again: \(reads.paths)")

        // An edit in place that keeps the size is seen (mtime and ctime moved).
        try HandEditTests.handEdit(dir.path, HandEditTests.d265File, "Mobile Services is Cool!", "Mobile Services is COOL!")
        reads.reset()
        let status = cli.run("status", "--short")
        #expect(status.out.hasSuffix("H  todoitem  D265  text changed\n"), "\(status)")
        #expect(reads.paths.map { $0.lastPathComponent } == ["d265929e-b17b-42d1-8fab-d0adf26486fa.json"])
        reads.reset()
        #expect(cli.run("status", "--short").out.hasSuffix("H  todoitem  D265  text changed\n"), "a file with a hand edit is never taken as clean")
        #expect(reads.count == 1)
    }

    /// An edit that keeps the size and puts the old mtime back (`touch -d`) still moves ctime.
    @Test func anEditThatRestoresTheModificationTimeIsSeen() throws {
        let (dir, cli, _) = try Self.store(items: 3)
        defer { dir.remove() }
        let path = dir.path + "/.todo/" + HandEditTests.d265File
        var before = stat()
        #expect(stat(path, &before) == 0)
        #expect(cli.run("status").code == 0)
        #expect(cli.run("status", "--short").out == "## http://127.0.0.1:8080 (mobile-apps)\n")
        usleep(20_000)
        try HandEditTests.handEdit(dir.path, HandEditTests.d265File, "Mobile Services is Cool!", "Mobile Services is COOL!")
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(cli.run("status", "--short").out.hasSuffix("H  todoitem  D265  text changed\n"))
    }

    /// A file whose times are not older than the cache may have changed after it was stamped in
    /// the same clock tick: it is read every time until a later cache is newer than it.
    @Test func aFileAsNewAsTheCacheIsReadAgain() throws {
        let (dir, cli, reads) = try Self.store(items: 3)
        defer { dir.remove() }
        #expect(cli.run("status").code == 0)
        let path = dir.path + "/.todo/tables/todoitem/items/item-1.json"
        var st = stat()
        #expect(stat(dir.path + "/.todo/cache/item-stamps", &st) == 0)
        // Same content and inode, mtime in the cache's own tick: racily clean.
        var times = [st.st_mtim, st.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        reads.reset()
        #expect(cli.run("status").code == 0)
        #expect(reads.paths.map { $0.lastPathComponent } == ["item-1.json"])
    }

    @Test func aDamagedCacheIsIgnoredAndRewritten() throws {
        let (dir, cli, reads) = try Self.store(items: 5)
        defer { dir.remove() }
        #expect(cli.run("status").code == 0)
        let fs = LocalFileSystem()
        let index = String(decoding: try #require(try fs.readFile(dir.path + "/.todo/cache/item-stamps")), as: UTF8.self)
        let fields = index.dropFirst("todo item stamps 3\n".count).dropLast().split(separator: " ")
        #expect(index.hasPrefix("todo item stamps 3\n") && fields.count == 3 && fields[1] == "1" && fields[2] == "7", "one page of 7 clean files: \(index)")
        let page = dir.path + "/.todo/cache/item-stamp-pages/\(fields.first ?? "").0"
        var bytes = try #require(try fs.readFile(page))
        #expect(bytes.count == 7 * 16, "16 bytes for each of 7 clean files")
        bytes += Array("torn!".utf8)  // not whole entries: damaged
        try fs.writeFile(page, bytes, sync: false)
        reads.reset()
        #expect(cli.run("status", "--short").out == "## http://127.0.0.1:8080 (mobile-apps)\n")
        #expect(reads.count == 7, "a damaged page is no cache")
        reads.reset()
        #expect(cli.run("status").code == 0)
        #expect(reads.count == 0, "rewritten")
        #expect(fs.fileExists(dir.path + "/.todo/cache/.gitignore"))
        #expect(cli.run("doctor").code == 0, "doctor knows the cache folder")
    }

    /// Pages of a scan that was killed before its commit belong to no index. A scan that finds
    /// the cache right (and so commits nothing) still removes them: they would otherwise stay
    /// until the items change, up to 16 MB at a million items.
    @Test func pagesOfAKilledScanAreRemovedByTheNextScan() throws {
        let (dir, cli, reads) = try Self.store(items: 5)
        defer { dir.remove() }
        #expect(cli.run("status").code == 0)
        let fs = LocalFileSystem()
        let pagesDir = dir.path + "/.todo/cache/item-stamp-pages"
        let kept = try #require(try fs.listDirectory(pagesDir))
        #expect(kept.count == 1)
        try fs.writeFile(pagesDir + "/77-1764122283123456789.0", [UInt8](repeating: 1, count: 32), sync: false)
        try fs.writeFile(pagesDir + "/77-1764122283123456789.1", [UInt8](repeating: 1, count: 32), sync: false)
        reads.reset()
        #expect(cli.run("status").code == 0)
        #expect(reads.count == 0, "the cache is right: nothing read, nothing committed")
        #expect(try fs.listDirectory(pagesDir) == kept, "the killed scan's pages are gone, the cache's page is kept")
    }

    /// Form 2 of the cache (its entries in the file itself) is no cache to this one: every file
    /// is read once, and the cache is written again in form 3.
    @Test func aCacheOfTheOldFormIsRebuilt() throws {
        let (dir, cli, reads) = try Self.store(items: 5)
        defer { dir.remove() }
        let fs = LocalFileSystem()
        try fs.createDirectory(dir.path + "/.todo/cache")
        try fs.writeFile(dir.path + "/.todo/cache/item-stamps", Array("todo item stamps 2\n".utf8) + [UInt8](repeating: 7, count: 7 * 16), sync: false)
        #expect(cli.run("status").code == 0)
        #expect(reads.count == 7, "form 2 is no cache")
        reads.reset()
        #expect(cli.run("status").code == 0)
        #expect(reads.count == 0)
        #expect(String(decoding: try #require(try fs.readFile(dir.path + "/.todo/cache/item-stamps")), as: UTF8.self).hasPrefix("todo item stamps 3\n"))
    }

    /// A table without pull queries is asked whether it holds pulled items (for the line that
    /// says 'todo pull' stores a query): the first such item file answers, not all of them.
    @Test func aTableWithoutQueriesIsNotReadWhole() throws {
        let (dir, cli, reads) = try Self.store(items: 40)
        defer { dir.remove() }
        let store = try ConflictStores.open(dir.path)
        var config = try #require(try store.tableConfig("todoitem"))
        config.queries = [:]
        var tx = try store.transaction()
        tx.putTableConfig(config)
        for n in 0..<40 {  // every item as a pull leaves it, with a version
            tx.putItem(Item(id: "item-\(n)", fields: ["text": .string("item \(n)")], system: SystemProperties(version: "AAAAAAAAAAE=")), table: "todoitem")
        }
        try store.commit(tx)
        store.close()
        usleep(50_000)
        #expect(cli.run("status").code == 0)
        reads.reset()
        let status = cli.run("status")
        #expect(status.out.contains("todoitem  pulled, but no query is stored"), "\(status)")
        #expect(reads.count == 1, "one item file read: \(reads.paths)")
    }
}
