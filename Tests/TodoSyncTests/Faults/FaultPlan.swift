import TableProtocol
import TodoBasics

/// The network faults the proxy can inject, one per request (issue 5, item 3).
///
/// Each one leaves the client unsure about something different, which is why all of them are
/// needed: whether the request left at all, whether the server applied it, whether the answer
/// that did arrive is whole.
enum FaultKind: String, CaseIterable, Sendable, Comparable {
    /// The connection is closed before the request is forwarded: the server never sees it.
    case dropBeforeForward
    /// The request is forwarded and answered, then the connection is reset: applied, reply lost.
    case dropAfterForward
    /// The request is forwarded, and the reply is cut in the middle and the connection closed.
    case cutResponse
    /// The request is forwarded at once; the answer is held past the client's timeout.
    case delayAnswer
    /// The request itself is held past the client's timeout, then forwarded: it lands late,
    /// possibly after the client's retry.
    case delayRequest
    /// The proxy answers 500 itself; the server never sees the request.
    case answer500
    /// The proxy answers 503 itself; the server never sees the request.
    case answer503
    /// The request reaches the server out of frame: its bytes up to the first `/` of the target
    /// are lost on the way, so the server reads `tables/...` as a request line, answers 400
    /// and closes. Nothing is applied, but the client only has the server's 400 to go by.
    case damageRequest

    static func < (a: FaultKind, b: FaultKind) -> Bool { a.rawValue < b.rawValue }

    /// Kinds that cost the client a whole request timeout each (the campaign budgets them).
    var isSlow: Bool { self == .delayAnswer || self == .delayRequest }
}

/// Which request gets which fault: a fixed script (deterministic tests), or a seeded draw with a
/// rate and a budget, so a campaign faults a lot and then stops, and retries can finish.
struct FaultPlan: Sendable {
    /// Faults for the next requests, in order (nil lets one through); used before the draw.
    var script: [FaultKind?] = []
    /// Kinds the draw picks from.
    var kinds: [FaultKind] = []
    /// Chance that an eligible request is faulted by the draw.
    var rate = 0.0
    /// Faults the draw may still inject; slow ones also count against `slowBudget`.
    var budget = 0
    var slowBudget = 0
    /// Which requests the draw may fault (all by default).
    var eligible: @Sendable (HTTPRequest) -> Bool = { _ in true }
    private var rng = SplitMix64(seed: 0)

    /// Lets everything through.
    static let clean = FaultPlan()

    /// The given faults for the next requests, then nothing.
    static func scripted(_ script: [FaultKind?]) -> FaultPlan {
        var plan = FaultPlan()
        plan.script = script
        return plan
    }

    /// Random faults from `kinds`, each request with probability `rate`, until `budget` is spent.
    static func seeded(_ seed: UInt64, kinds: [FaultKind] = FaultKind.allCases, rate: Double, budget: Int,
                       slowBudget: Int = 6, eligible: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }) -> FaultPlan {
        var plan = FaultPlan()
        plan.kinds = kinds
        plan.rate = rate
        plan.budget = budget
        plan.slowBudget = slowBudget
        plan.eligible = eligible
        plan.rng = SplitMix64(seed: seed)
        return plan
    }

    /// True while the plan may still fault something.
    var isActive: Bool { !script.isEmpty || (budget > 0 && !kinds.isEmpty && rate > 0) }

    /// The fault for `request`, or nil to forward it untouched.
    mutating func decide(_ request: HTTPRequest) -> FaultKind? {
        if !script.isEmpty { return script.removeFirst() }
        guard budget > 0, !kinds.isEmpty, eligible(request) else { return nil }
        guard Double.random(in: 0..<1, using: &rng) < rate else { return nil }
        var kind = kinds[Int.random(in: 0..<kinds.count, using: &rng)]
        if kind.isSlow {
            if slowBudget <= 0 {
                let fast = kinds.filter { !$0.isSlow }
                guard !fast.isEmpty else { return nil }
                kind = fast[Int.random(in: 0..<fast.count, using: &rng)]
            } else {
                slowBudget -= 1
            }
        }
        budget -= 1
        return kind
    }

    /// Where to cut a reply of `count` bytes: somewhere strictly inside it, drawn from the plan.
    mutating func cutPoint(_ count: Int) -> Int {
        count <= 1 ? 0 : Int.random(in: 1..<count, using: &rng)
    }
}
