import Synchronization
import Testing
import TodoBasics
import TodoModel
import TodoStore
import TodoTestSupport

/// Issue 21: `show` before any index and `list --all` on a replica of a long queue walk the
/// operations and items folders, never hold their listings (a listing of a million names, and a
/// set of their ids, held 177 MB for `show`; `list` held the queue's names as a dictionary).
/// Counted through a file-system seam that tells a listing (every name held at once) from a walk.
@Suite struct QueueWalkGuardTests {
    /// The local file system, noting the folders listed whole; walks (`scanDirectory`) go
    /// through the local one's streaming walk and are not noted.
    final class Listings: FileSystem {
        let base = LocalFileSystem()
        private let listed = Mutex<[String]>([])

        var paths: [String] { listed.withLock { $0 } }
        func count(endingWith suffix: String) -> Int { paths.filter { $0.hasSuffix(suffix) }.count }
        func reset() { listed.withLock { $0 = [] } }

        func listDirectory(_ path: String) throws(FileSystemError) -> [String]? {
            listed.withLock { $0.append(path) }
            return try base.listDirectory(path)
        }
        func scanDirectory(_ path: String, _ body: (String) -> Bool) throws(FileSystemError) -> Bool { try base.scanDirectory(path, body) }
        func readFile(_ path: String) throws(FileSystemError) -> [UInt8]? { try base.readFile(path) }
        func writeFile(_ path: String, _ bytes: [UInt8], sync: Bool) throws(FileSystemError) { try base.writeFile(path, bytes, sync: sync) }
        func rename(_ from: String, to: String) throws(FileSystemError) { try base.rename(from, to: to) }
        func removeFile(_ path: String) throws(FileSystemError) { try base.removeFile(path) }
        func removeDirectory(_ path: String) throws(FileSystemError) { try base.removeDirectory(path) }
        func createDirectory(_ path: String) throws(FileSystemError) { try base.createDirectory(path) }
        func syncDirectory(_ path: String) throws(FileSystemError) { try base.syncDirectory(path) }
        func syncFileSystem(_ path: String) throws(FileSystemError) { try base.syncFileSystem(path) }
        func fileExists(_ path: String) -> Bool { base.fileExists(path) }
        func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
        func isSymbolicLink(_ path: String) -> Bool { base.isSymbolicLink(path) }
        func stamp(_ path: String) -> FileStamp? { base.stamp(path) }
        func stamps(in directory: String, names: [String]) -> [FileStamp?] { base.stamps(in: directory, names: names) }
        func directoryStamp(_ path: String) -> FileStamp? { base.directoryStamp(path) }
        func readFiles(in directory: String, names: [String]) throws(FileSystemError) -> [[UInt8]?] { try base.readFiles(in: directory, names: names) }
        func writeFiles(in directory: String, _ files: [(name: String, content: [UInt8]?)]) throws(FileSystemError) { try base.writeFiles(in: directory, files) }
        func existing(in directory: String, names: [String]) -> [Bool] { base.existing(in: directory, names: names) }
    }

    /// The synced store with 30 pending inserts and a pending delete, and neither index (as a
    /// store written by another tool, or a clone before any local change, has them).
    static func store() throws -> (TempDirectory, Listings) {
        let (dir, cli) = try HandEditTests.synced()
        for i in 0..<30 { #expect(cli.run("add", "new \(i)", "--id", "new-\(i)").code == 0) }
        #expect(cli.run("rm", "d265").code == 0)
        try? LocalFileSystem().removeFile(dir.sub(".todo/cache/pending/stamp"))
        for t in ((try? LocalFileSystem().listDirectory(dir.sub(".todo/cache/ids"))) ?? nil) ?? [] {
            try? LocalFileSystem().removeFile(dir.sub(".todo/cache/ids/\(t)/stamp"))
        }
        return (dir, Listings())
    }

    @Test func showWalksTheFoldersBeforeAnyIndex() throws {
        let (dir, fs) = try Self.store()
        defer { dir.remove() }
        let plain = CLIHarness(directory: dir.path)
        let walked = CLIHarness(directory: dir.path, fs: fs)
        for args in [["show", "new-7"], ["show", "1d0b"], ["show", "d265"]] {
            let expected = plain.run(args)
            fs.reset()
            let result = walked.run(args)
            #expect(result.transcript == expected.transcript, "\(args)")
            #expect(fs.count(endingWith: "/operations") == 0 && fs.count(endingWith: "/items") == 0,
                    "\(args): the folders are walked, not listed: \(fs.paths)")
        }
    }

    @Test func listWalksTheQueue() throws {
        let (dir, fs) = try Self.store()
        defer { dir.remove() }
        let expected = CLIHarness(directory: dir.path).run("list", "--all")
        #expect(expected.code == 0 && expected.out.contains("new 7"))
        let result = CLIHarness(directory: dir.path, fs: fs).run("list", "--all")
        #expect(result.transcript == expected.transcript)
        #expect(fs.count(endingWith: "/operations") == 0, "the queue is walked, not listed: \(fs.paths)")
    }
}
