// The file work of a push alone, on a replica as sync_load.py writes it: for each pending insert,
// what `todo push` cannot skip while it keeps one plain file per operation (issue 16 item 7):
// read the op file, read the item file (the hand-edit check), write the server's copy over the
// item file in place, remove the op file; a syncfs per batch of 400 (the commit that makes a
// batch's outcomes and the next batch's markers durable), run beside the next batch's work as the
// push runs it. No JSON, no network, no journal: a
// floor for this machine's file system, measured in the same run as the push (sync.sh).
//
//   swiftc -O push_floor.swift -o push_floor && ./push_floor REPLICA/.todo [threads] [batch] [batch|end]
//   prints: "ops N threads T batch B durability D wall S cpu S"
import Dispatch
import Foundation
import Glibc

let args = CommandLine.arguments
guard args.count >= 2 else { fputs("usage: push_floor DOTTODO [threads] [batch] [batch|end]\n", stderr); exit(2) }
let root = args[1]
let threads = args.count > 2 ? Int(args[2])! : 16
let batch = args.count > 3 ? Int(args[3])! : 400
/// "batch": a syncfs per batch, each beside the next batch's work, one at a time, as the push's
/// commits run (CommitSeries). "end": one syncfs after all the work, the least any push could do.
let durability = args.count > 4 ? args[4] : "batch"

@Sendable func fail(_ what: String) -> Never { perror(what); exit(1) }

func list(_ dir: String) -> [String] {
    guard let d = opendir(dir) else { fail(dir) }
    defer { closedir(d) }
    var names: [String] = []
    while let e = readdir(d) {
        let name = withUnsafePointer(to: e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
        if name.hasSuffix(".json") { names.append(name) }
    }
    return names.sorted()
}

/// (op file, item file) per pending op: `<seq>.<kind>.<table>.<id>.json` → `tables/<table>/items/<id>.json`.
let jobs: [(op: String, item: String)] = list(root + "/operations").map { name in
    let parts = name.split(separator: ".", maxSplits: 3).map(String.init)
    return (root + "/operations/" + name, root + "/tables/" + parts[2] + "/items/" + parts[3])
}

/// The system fields a pushed item file gains (as `todo push` writes them: 284 bytes for
/// sync_load.py's items).
let system = Array("""
  "ms_createdAt": "2026-11-27T09:33:10.262Z",
  "ms_updatedAt": "2026-11-27T09:33:10.262Z",
  "ms_version": "AAAAAAAAABA=",
  "ms_written": "eyJjb21wbGV0ZSI6ZmFsc2UsInRleHQiOiJpdGVtIDAifQ==",

""".utf8)

@Sendable func readAll(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { fail(path) }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 16_384)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n < 0 { fail(path) }
    return Array(buffer[0..<n])
}

@Sendable func work(_ job: (op: String, item: String)) {
    _ = readAll(job.op)
    var item = readAll(job.item)
    // The server's copy: the item's fields with the system fields after the opening brace.
    item.insert(contentsOf: system, at: 2)
    let fd = open(job.item, O_WRONLY | O_CLOEXEC)
    if fd < 0 { fail(job.item) }
    if item.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) != item.count { fail(job.item) }
    close(fd)
    if unlink(job.op) != 0 { fail(job.op) }
}

typealias SyncFS = @convention(c) (Int32) -> Int32
let syncfs = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs")!, to: SyncFS.self)
let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

// Persistent workers: each takes every `threads`-th op of the batch, then waits for the next.
nonisolated(unsafe) var current: ArraySlice<(op: String, item: String)> = []
let start = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
let done = DispatchSemaphore(value: 0)
for k in 0..<threads {
    let thread = Thread {
        while true {
            start[k].wait()
            let slice = current
            var i = slice.startIndex + k
            while i < slice.endIndex { work(slice[i]); i += threads }
            done.signal()
        }
    }
    thread.start()
}

let syncing = DispatchQueue(label: "syncfs")
let cpu0 = cpuSeconds(), t0 = now()
var offset = 0
while offset < jobs.count {
    current = jobs[offset..<min(offset + batch, jobs.count)]
    for s in start { s.signal() }
    for _ in 0..<threads { done.wait() }
    // As the push's commits: each syncfs overlaps the next batch, one at a time (CommitSeries).
    if durability == "batch" { syncing.async { if syncfs(rootFD) != 0 { fail("syncfs") } } }
    offset += batch
}
syncing.sync {}
if durability == "end", syncfs(rootFD) != 0 { fail("syncfs") }
let wall = now() - t0, cpu = cpuSeconds() - cpu0
print("ops \(jobs.count) threads \(threads) batch \(batch) durability \(durability) wall " + String(format: "%.3f cpu %.3f", wall, cpu))
