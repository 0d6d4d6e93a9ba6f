#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoTestSupport
@testable import TodoBasics

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func knownVectors(input: String, digest: String) {
        #expect(SHA256.hexDigest(Array(input.utf8)) == digest)
    }

    @Test func millionAs() {
        #expect(SHA256.hexDigest([UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_714_554_000_120, "2024-05-01T09:00:00.120Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func formatsUTCWithThreeDigits(ms: Int64, text: String) {
        #expect(Timestamp.format(milliseconds: ms) == text)
    }
}

@Suite struct IDGeneratorTests {
    @Test func seededIDsAreRepeatableLowerCaseUUIDv4() {
        let a = IDGenerator.seeded(7), b = IDGenerator.seeded(7)
        let first = a.next()
        #expect(first == b.next())
        #expect(first != a.next())
        #expect(first.count == 36 && first == first.lowercased())
        let chars = Array(first)
        #expect(chars[14] == "4" && "89ab".contains(chars[19]))
    }

    @Test func liveIDsDiffer() {
        #expect(IDGenerator.live.next() != IDGenerator.live.next())
    }
}

@Suite struct FileSystemTests {
    @Test func atomicWriteReplacesAndLeavesNoTemp() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let path = dir.sub("a.json")
        try AtomicFile.write(Array("one".utf8), to: path, in: fs)
        try AtomicFile.write(Array("two".utf8), to: path, in: fs)
        #expect(try fs.readFile(path) == Array("two".utf8))
        #expect(try fs.listDirectory(dir.path) == ["a.json"])
    }

    /// writeFile overwrites in place and trims (no truncate to zero): the file must end up
    /// holding exactly the new bytes whether they are shorter, longer or across blocks.
    @Test func writeFileLeavesExactlyTheNewBytes() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let path = dir.sub("a.json")
        for size in [100, 10, 0, 5000, 4097, 3, 9000] {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }
            try fs.writeFile(path, bytes, sync: size % 2 == 0)
            #expect(try fs.readFile(path) == bytes, "after writing \(size) bytes")
        }
    }

    @Test(arguments: [0, 1, 16_383, 16_384, 16_385, 40_000, 1_000_000])
    func readFileReturnsExactlyTheBytesWhateverTheSize(size: Int) throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let fs = LocalFileSystem()
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try fs.writeFile(dir.sub("f"), bytes, sync: false)
        #expect(try fs.readFile(dir.sub("f")) == bytes)
    }

    @Test func readingAFolderIsAnErrorNamingIt() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let error = #expect(throws: FileSystemError.self) { try LocalFileSystem().readFile(dir.path) }
        #expect(error?.description == "cannot read '\(dir.path)': \(errnoText(EISDIR))")
    }

    @Test func aFaultDuringAtomicWriteKeepsTheOldFile() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.sub("a.json")
        try AtomicFile.write(Array("old".utf8), to: path, in: LocalFileSystem())
        for n in 1...2 {
            let faulty = FaultyFileSystem(base: LocalFileSystem(), failOnCall: n)
            let error = #expect(throws: FileSystemError.self) { try AtomicFile.write(Array("new".utf8), to: path, in: faulty) }
            // The injected fault itself, not some other failure of the write.
            #expect(error?.reason.hasPrefix("injected fault (call \(n),") == true, "\(String(describing: error))")
            #expect(try LocalFileSystem().readFile(path) == Array("old".utf8))
        }
    }

    @Test func missingFilesAndFoldersAreNilNotErrors() throws {
        let fs = LocalFileSystem()
        #expect(try fs.readFile("/nonexistent/x") == nil)
        #expect(try fs.listDirectory("/nonexistent") == nil)
        try fs.removeFile("/tmp/definitely-not-here-\(IDGenerator.live.next())")
    }

    @Test func storeLockIsExclusiveAndNamesItsHolder() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let path = dir.sub("lock")
        let first = try StoreLock.acquire(at: path, command: "todo push")
        // flock locks belong to open file descriptions, so a second acquisition in this process conflicts too.
        #expect {
            _ = try StoreLock.acquire(at: path, command: "todo add")
        } throws: { error in
            guard let held = error as? StoreLock.Held else { return false }
            return held.command == "todo push" && held.pid != nil
        }
        first.release()
        let again = try StoreLock.acquire(at: path, command: "todo add")
        again.release()
    }
}

@Suite struct PathTextTests {
    @Test(arguments: [
        ("/a/b", "/a", "b"),
        ("/a", "/", "a"),
        ("a", ".", "a"),
        ("/x/é/ü.json", "/x/é", "ü.json"),
        ("/x/e\u{301}/n\u{303}.json", "/x/e\u{301}", "n\u{303}.json"),
        (".todo/operations/", ".todo/operations", ""),
        ("/a/\u{301}b.json", "/a", "\u{301}b.json"),
        ("/", "/", ""),
        ("", ".", ""),
    ])
    func parentAndLastComponent(path: String, parent: String, last: String) {
        #expect(path.parentPath == parent)
        #expect(path.lastPathComponent == last)
    }

    @Test func base64RoundTripsAndRefusesWhatItDoesNotWrite() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "{\"text\":\"é ✓\"}"] {
            let encoded = Base64.encode(Array(text.utf8))
            #expect(Base64.decode(encoded) == Array(text.utf8))
        }
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy" && Base64.encode(Array("fo".utf8)) == "Zm8=")
        for bad in ["Zm9", "Zm9v YmFy", "Zm=8", "Zm9=", "====", "Zm8=Zm8="] { #expect(Base64.decode(bad) == nil, "\(bad)") }
    }
}
