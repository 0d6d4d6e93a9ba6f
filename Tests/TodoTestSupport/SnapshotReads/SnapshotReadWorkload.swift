import Synchronization
import TodoBasics
import TodoModel

/// Issue 22, "Reads never see half a write": many writers and many readers at once against one
/// table server, then a check that every row any answer held is exactly one committed version.
///
/// Writers (`SnapshotWriter`) PATCH rows with a field no row had before (`{"k": n, "cn": n}`, so
/// dynamic schema adds a column with that very write), update, delete, undelete, insert, PATCH with
/// a stale `If-Match` (a 412 body is a read too), write to a table the run creates with
/// `--dynamic-tables`, and send a bad insert to a table that must never come to exist. Readers
/// (`SnapshotReader`) ask for pages by id, pull-shaped cursor pages, sorted pages, `$select`,
/// `$inlinecount`, G2 pages with a `Link`, G1 pages, reads by id. Each 2xx write answer gives the
/// row at the version it committed; `SnapshotLedger` compares every other row showing that version
/// with it. Checks that need no ledger (order, duplicates, counts, `Link`) run on each answer.
///
/// Nothing is timed: the writers do a fixed number of writes, the readers read until they are done,
/// and every check is on content. Against any server that speaks the protocol: `connect` opens one
/// connection (called once on each thread) and returns how to send on it; the server must serve the
/// table `table` (existing or created by the first insert) and create tables on insert when
/// `dynamicTable` is set.
public struct SnapshotReadWorkload: Sendable {
    public struct Configuration: Sendable {
        public var writers = 4
        public var writesPerWriter = 40
        public var readers = 4
        /// Reads each reader makes at least, even when the writers finish first.
        public var minimumReadsPerReader = 25
        public var initialRows = 30
        /// The server's page size P (protocol §8.9).
        public var pageSize = 50
        public var table = "todoitem"
        /// A table the run creates with its first insert; nil for a server without dynamic tables.
        public var dynamicTable: String? = "snapextra"
        /// A table only bad inserts are sent to: it must never exist.
        public var absentTable = "snapghost"

        public init() {}
    }

    /// What one run did and found.
    public struct Report: Sendable, CustomStringConvertible {
        public var seed: UInt64
        /// 2xx write answers (each one a committed version, or a write that changed nothing).
        public var writes = 0
        /// 409/412 answers (their bodies are checked like reads).
        public var conflicts = 0
        /// Answers to reads (queries and reads by id).
        public var reads = 0
        /// Rows compared with the write answer of their version.
        public var rowsChecked = 0
        public var tornRows = 0
        public var tornAnswers = 0
        public var failures: [String] = []

        public var passed: Bool { failures.isEmpty }

        public var description: String {
            var text = "seed \(seed): \(writes) writes, \(conflicts) conflicts, \(reads) reads, \(rowsChecked) rows checked"
            if tornRows > 0 { text += ", \(tornRows) torn rows in \(tornAnswers) answers" }
            guard !failures.isEmpty else { return text }
            text += "; \(failures.count) failures (replay with TODO_SNAPSHOT_SEED=\(seed)):"
            // The same failure seen many times is listed once, with its count.
            var order: [String] = []
            var times: [String: Int] = [:]
            for failure in failures {
                if times[failure] == nil { order.append(failure) }
                times[failure, default: 0] += 1
            }
            for failure in order.prefix(20) {
                text += "\n" + failure + (times[failure]! > 1 ? " (\(times[failure]!) times)" : "")
            }
            return text
        }
    }

    public let seed: UInt64
    public let configuration: Configuration

    public init(seed: UInt64, configuration: Configuration = Configuration()) {
        self.seed = seed
        self.configuration = configuration
    }

    /// Runs the workload; `connect` is called once on each thread.
    public func run(connect: @escaping @Sendable () throws -> WireSend) -> Report {
        let run = SnapshotRun(seed: seed, configuration: configuration)
        do {
            let send = try connect()
            try SnapshotWriter(run: run, index: -1, send: send).seed()
        } catch {
            run.fail("setup: \(error)")
            return run.report()
        }
        let writers = configuration.writers
        RealThreads.run(writers + configuration.readers) { index in
            let send: WireSend
            do { send = try connect() } catch {
                run.fail("connect: \(error)")
                if index < writers { run.writerFinished() }
                return
            }
            if index < writers {
                SnapshotWriter(run: run, index: index, send: send).work()
                run.writerFinished()
            } else {
                SnapshotReader(run: run, index: index - writers, send: send).work()
            }
        }
        return run.report()
    }
}

/// What the threads of one run share.
final class SnapshotRun: Sendable {
    let seed: UInt64
    let configuration: SnapshotReadWorkload.Configuration
    let ledger = SnapshotLedger()
    private let nextNumber = Atomic<Int>(0)
    private let writersLeft: Atomic<Int>
    private let counts = Mutex((writes: 0, conflicts: 0, reads: 0))
    private let failures = Mutex<[String]>([])
    /// Ids known to exist, by table, and the versions write answers gave each id.
    private let known = Mutex<(ids: [String: [String]], versions: [String: [String]])>(([:], [:]))

    init(seed: UInt64, configuration: SnapshotReadWorkload.Configuration) {
        self.seed = seed
        self.configuration = configuration
        writersLeft = Atomic(configuration.writers)
    }

    /// A number no other write of the run uses: values and new column names are unique.
    func unique() -> Int { nextNumber.add(1, ordering: .relaxed).newValue }

    func writerFinished() { writersLeft.subtract(1, ordering: .releasing) }
    var writersDone: Bool { writersLeft.load(ordering: .acquiring) <= 0 }

    func fail(_ message: String) { failures.withLock { $0.append(message) } }

    func count(_ source: SnapshotLedger.Source) {
        counts.withLock {
            switch source {
            case .write: $0.writes += 1
            case .conflict: $0.conflicts += 1
            case .read: $0.reads += 1
            }
        }
    }

    func learn(table: String, id: String, version: String?, isNew: Bool) {
        known.withLock {
            if isNew { $0.ids[table, default: []].append(id) }
            if let version { $0.versions[table + "/" + id.lowercased(), default: []].append(version) }
        }
    }

    func randomID<R: RandomNumberGenerator>(_ table: String, _ rng: inout R) -> String? {
        let ids = known.withLock { $0.ids[table] ?? [] }
        return ids.isEmpty ? nil : ids[Int.random(in: 0..<ids.count, using: &rng)]
    }

    /// One of the versions write answers gave this id: the current one, or (more often) an older one.
    func someVersion<R: RandomNumberGenerator>(_ table: String, _ id: String, _ rng: inout R) -> String? {
        let versions = known.withLock { $0.versions[table + "/" + id.lowercased()] ?? [] }
        return versions.randomElement(using: &rng)
    }

    /// The highest number handed out so far (new columns are `c1`…`c<this>`).
    var numbersUsed: Int { nextNumber.load(ordering: .relaxed) }

    func report() -> SnapshotReadWorkload.Report {
        let check = ledger.check()
        var report = SnapshotReadWorkload.Report(seed: seed)
        (report.writes, report.conflicts, report.reads) = counts.withLock { ($0.writes, $0.conflicts, $0.reads) }
        report.rowsChecked = check.rowsChecked
        report.tornRows = check.tornRows
        report.tornAnswers = check.tornAnswers
        report.failures = failures.withLock { $0 } + check.failures
        return report
    }
}
