import TodoModel
import TodoStore

/// What a push did (sync.md §4.9.1). The CLI renders it as text or JSON.
public struct PushReport: Sendable {
    /// Files of the queued items edited by hand: the push sent nothing (see `PushEngine.run`).
    public var handEdits: [HandEdit] = []
    /// One op's result, for the per-op lines.
    public struct Line: Sendable, Equatable {
        public enum Result: Sendable, Equatable {
            case ok
            case replayed(String)
            case merged
            case absorbed
            /// `kind`: what happened on each side (sync.md §7.3); `fields`: the clashing ones.
            case conflict(status: Int?, kind: Conflict.Kind, fields: [String])
            case rejected(status: Int?, message: String?)
            case held
            case stopped
        }
        public var kind: PendingOperation.Kind
        public var table: String
        public var id: String
        public var result: Result
    }

    public var remote: String = ""
    public var generation: String = ""
    public var sent: [PendingOperation.Kind: Int] = [:]
    public var succeeded = 0
    public var replayed = 0
    public var merged = 0
    public var newConflicts = 0
    public var newRejections = 0
    public var held = 0
    public var remaining = 0
    public var openConflicts = 0
    public var stop: SyncStop?
    public var lines: [Line] = []
    /// The most operations the push held at once (a figure for the tests, issue 21).
    public var mostOperationsHeld = 0
    /// Ops answered ok past `PushEngine.Options.okLinesKept`: counted, not in `lines`.
    public var okNotListed = 0

    /// Lines kept for ops answered ok (nil: all); see `PushEngine.Options.okLinesKept`.
    var okLinesKept: Int?
    private var okListed = 0

    public init() {}

    /// Adds an op's line; one answered ok past `okLinesKept` is only counted.
    mutating func add(_ line: Line) {
        if line.result == .ok {
            if let kept = okLinesKept, okListed >= kept {
                okNotListed += 1
                return
            }
            okListed += 1
        }
        lines.append(line)
    }

    public var totalSent: Int { sent.values.reduce(0, +) }
}

/// Progress of a long push or pull, for a terminal: counts so far and the total when known.
public struct SyncProgress: Sendable, Equatable {
    public var phase: String
    public var done: Int
    public var total: Int?
    public var elapsed: Double

    public init(phase: String, done: Int, total: Int?, elapsed: Double) {
        self.phase = phase
        self.done = done
        self.total = total
        self.elapsed = elapsed
    }
}
