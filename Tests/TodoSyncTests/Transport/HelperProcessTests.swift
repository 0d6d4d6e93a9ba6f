#if canImport(Glibc)
import Glibc
#endif
import Testing
import TodoBasics
@testable import TodoSync

/// What a spawned helper inherits: stdin and stdout on our socket, stderr, nothing else; no
/// blocked signals; SIGPIPE at its default.
struct HelperProcessTests {
    /// Runs `path` as a "helper" and returns what it wrote to stdout.
    func output(of path: String, _ arguments: String...) throws -> String {
        let process = try HelperProcess.spawn(path: path, arguments: arguments).get()
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Deadline(secondsFromNow: 5)
        reading: while case .ready = DescriptorIO.wait(process.fd, for: Int16(POLLIN), until: deadline) {
            switch buffer.withUnsafeMutableBytes({ DescriptorIO.readSome(process.fd, into: $0) }) {
            case .bytes(let count): output += buffer[0..<count]
            case .wouldBlock: continue
            case .endOfInput, .failed: break reading
            }
        }
        #expect(process.terminate() == "exit status 0")
        return String(decoding: output, as: UTF8.self)
    }

    @Test func inheritsNoOtherDescriptors() throws {
        let leaky = open("/dev/null", O_RDONLY)  // deliberately without O_CLOEXEC
        defer { close(leaky) }
        #expect(leaky >= 3)
        // `ls` itself holds one descriptor (3) for the directory it lists.
        let listed = try output(of: "/bin/ls", "/proc/self/fd").split(separator: "\n")
        #expect(listed == ["0", "1", "2", "3"])
    }

    @Test func blocksNoSignalsAndKeepsSIGPIPEDefault() throws {
        // Spawned from a thread that blocks SIGPIPE and with SIGPIPE ignored: the child must
        // still start with an empty mask and SIGPIPE at its default. (grep itself, no shell,
        // which could reset both.)
        let result = ResultBox()
        let thread = TestThread {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &set, nil)
            let previous = signal(SIGPIPE, SIG_IGN)
            defer { signal(SIGPIPE, previous) }
            result.text = (try? output(of: "/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status")) ?? ""
        }
        thread.join()
        let fields = Dictionary(uniqueKeysWithValues: result.text.split(separator: "\n").map {
            let parts = $0.split(separator: ":").map { $0.trimmingCharacters(in: " \t") }
            return (parts[0], UInt64(parts[1], radix: 16) ?? .max)
        })
        #expect(fields["SigBlk"] == 0)
        #expect(fields["SigIgn"].map { $0 & (1 << (UInt64(SIGPIPE) - 1)) } == 0)
    }
}

private final class ResultBox: @unchecked Sendable {
    var text = ""
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
