#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
import TodoTestSupport

/// The built `todo` binary, in real processes.
@Suite(.serialized) struct ProcessTests {
    static var binary: String {
        Fixtures.root.parentPath.appendingPath(".build/debug/todo")
    }

    static func sh(_ command: String, in dir: String) -> (code: Int32, out: String, err: String) {
        let code = TempDirectory.shell("cd '\(dir)' && unset TODO_DIR && { \(command) ; } > .out 2> .err")
        let out = (try? LocalFileSystem().readFile(dir + "/.out")).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let err = (try? LocalFileSystem().readFile(dir + "/.err")).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (code, out, err)
    }

    @Test func aSecondWriterIsToldWhoHoldsTheLock() throws {
        #expect(LocalFileSystem().fileExists(Self.binary), "build the todo binary first (swift build)")
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let lock = try StoreLock.acquire(at: dir.sub(".todo/lock"), command: "todo push")
        let r = Self.sh("'\(Self.binary)' add 'Buy milk'", in: dir.path)
        #expect(r.code == 1)
        #expect(r.err == """
            error: another todo process (pid \(getpid()), 'todo push') holds the store lock '\(dir.sub(".todo/lock"))'
            hint: wait for it to finish; the lock is released when that process exits (if it hangs, stop it with 'kill \(getpid())')

            """)
        // Readers do not need the lock.
        #expect(Self.sh("'\(Self.binary)' status", in: dir.path).code == 0)
        lock.release()
        #expect(Self.sh("'\(Self.binary)' add 'Buy milk'", in: dir.path).code == 0)
    }

    /// With SIGPIPE ignored (python3 ignores it and, with `restore_signals=False`, leaves it so in
    /// todo; some shells and CI runners do the same), a reader that went away used to be ignored:
    /// `todo list --all | head -1` read and rendered every item to the end and exited 0. The
    /// pipe's reader is closed before todo starts, so its first write fails with EPIPE.
    @Test(arguments: [["list", "--all"], ["export", "--json-lines"], ["--help"]])
    func aReaderThatWentAwayEndsTheCommandAsSIGPIPEWould(_ arguments: [String]) {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/synced", to: dir.path)
        let script = "import os,subprocess,sys; r,w=os.pipe(); os.close(r); print(subprocess.run(sys.argv[1:], stdout=w, restore_signals=False).returncode)"
        let r = Self.sh("python3 -c '\(script)' '\(Self.binary)' \(arguments.joined(separator: " "))", in: dir.path)
        #expect(r.code == 0)
        #expect(r.out == "-13\n", "killed by SIGPIPE, as when the signal is not ignored")
        #expect(r.err == "")
    }

    @Test func aStaleLockFileBlocksNobody() {
        let dir = TempDirectory()
        defer { dir.remove() }
        Fixtures.copy("Stores/stale-lock", to: dir.path)
        #expect(Self.sh("'\(Self.binary)' add 'after a crash'", in: dir.path).code == 0)
    }

    @Test func racingWritersLoseNothing() {
        let dir = TempDirectory()
        defer { dir.remove() }
        #expect(Self.sh("'\(Self.binary)' init", in: dir.path).code == 0)
        // 8 rounds of 4 processes adding at once: each either succeeds or fails clearly on the lock.
        let script = (1...8).map { round in
            (1...4).map { p in "('\(Self.binary)' add 'r\(round)p\(p)' >> .ids 2>> .errs; echo $? >> .codes) &" }.joined(separator: " ") + " wait"
        }.joined(separator: "\n")
        try? LocalFileSystem().writeFile(dir.sub(".race.sh"), Array((script + "\n").utf8), sync: false)
        #expect(Self.sh("sh .race.sh", in: dir.path).code == 0)
        let read = { (name: String) in String(decoding: (try? LocalFileSystem().readFile(dir.sub(name))).flatMap { $0 } ?? [], as: UTF8.self) }
        let codes = read(".codes").split(separator: "\n")
        let ids = read(".ids").split(separator: "\n")
        let errors = read(".errs").split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(codes.count == 32)
        #expect(codes.filter { $0 == "0" }.count == ids.count)
        #expect(errors.count == codes.filter { $0 != "0" }.count)
        #expect(errors.allSatisfy { $0.contains("holds the store lock") })
        let list = Self.sh("'\(Self.binary)' list --json", in: dir.path)
        let listed = list.out.split(separator: "\n").filter { $0.contains("\"id\":") }.count
        #expect(listed == ids.count, "every acknowledged add is in the store")
        #expect(Self.sh("'\(Self.binary)' doctor", in: dir.path).code == 0)
    }

    /// kill -9 of real `todo add` processes at spread-out moments: after each kill the store opens
    /// and `todo doctor` is clean, and every add that reported success is there.
    @Test func killNineNeverCorruptsOrLosesAnAcknowledgedAdd() {
        let dir = TempDirectory()
        defer { dir.remove() }
        #expect(Self.sh("'\(Self.binary)' init", in: dir.path).code == 0)
        // Kill moments spread over 0 to 1.5 times one add's duration on this machine right now,
        // so both outcomes occur however loaded it is.
        let started = Clock.live.nowMilliseconds()
        #expect(Self.sh("'\(Self.binary)' add warmup > /dev/null", in: dir.path).code == 0)
        let oneAdd = Double(max(Clock.live.nowMilliseconds() - started, 2)) / 1000
        var acknowledged: [String] = []
        var killed = 0
        for i in 0..<60 {
            let delay = String(format3(Double(i % 15) / 14 * 1.5 * oneAdd))
            let r = Self.sh("sh -c '\(Self.binary) add item\(i) > .one & p=$!; sleep \(delay); kill -9 $p 2>/dev/null; wait $p; echo $? > .code'; cat .one; cat .code", in: dir.path)
            let lines = r.out.split(separator: "\n").map(String.init)
            if lines.last == "0", lines.count == 2 { acknowledged.append(lines[0]) } else { killed += 1 }
            let doctor = Self.sh("'\(Self.binary)' doctor", in: dir.path)
            #expect(doctor.code == 0, "after kill \(i): \(doctor.out)\(doctor.err)")
        }
        let listed = Self.sh("'\(Self.binary)' list --json", in: dir.path).out
        for id in acknowledged { #expect(listed.contains(id), "acknowledged add \(id) is in the store") }
        #expect(killed > 0, "some processes were killed before they finished")
        #expect(!acknowledged.isEmpty, "some adds finished before their kill")
    }

    /// Local commands must stay lean: the binary links neither Foundation nor FoundationNetworking
    /// (about 11 ms more at every start). Today it links the Swift runtime in (`-static-stdlib`,
    /// StaticRuntimeTests) and libc shared; OpenSSL, which https uses, is opened at run time
    /// (`LibSSL`), so a machine without it still runs todo. With the runtime linked in, Foundation
    /// would be linked in too, so its module name (in every mangled symbol and type name of it)
    /// must not be in the file either.
    @Test func todoDoesNotLinkFoundation() {
        let dir = TempDirectory()
        defer { dir.remove() }
        let r = Self.sh("ldd '\(Self.binary)'", in: dir.path)
        #expect(r.code == 0)
        #expect(r.out.contains("libc.so"))
        #expect(!r.out.contains("libFoundation.so") && !r.out.contains("libFoundationNetworking"))
        #expect(!r.out.contains("libssl") && !r.out.contains("libcrypto"), "\(r.out)")
        #expect(Self.sh("grep -c 10Foundation '\(Self.binary)'", in: dir.path).out == "0\n",
                "todo holds Foundation's code (its mangled module name '10Foundation' is in the file)")
        #expect(Self.sh("grep -c 10Foundation '\(Self.binary)-remote-https'", in: dir.path).out != "0\n", "the search finds it where it is")
    }
}

/// Seconds with three decimals, for `sleep`.
private func format3(_ seconds: Double) -> String {
    let ms = Int((seconds * 1000).rounded())
    return "\(ms / 1000).\(String(repeating: "0", count: 3 - String(ms % 1000).count))\(ms % 1000)"
}
