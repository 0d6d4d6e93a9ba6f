import Synchronization
import TodoModel

/// Every row a snapshot-read run was shown, and the check of issue 22: each row in each answer is
/// exactly one committed version of that row.
///
/// Rows are grouped by (table, id ignoring case, version). A 2xx write answer shows the version its
/// write committed, with all its fields; every other row showing that version (a read, a 409/412
/// body, a write that changed nothing) must have the same members and values. `null` and absent
/// count alike: an item lists every column of its table (protocol §4.7.5), so a later answer for
/// the same version also lists the columns created since, as `null` (§10.4: clients treat them
/// alike). A missing non-null field, an extra one, or another value is half a write, or a mix of two.
public final class SnapshotLedger: Sendable {
    /// Where a row was seen.
    public enum Source: Sendable { case write, conflict, read }

    struct Observation: Sendable {
        var source: Source
        /// The request that answered it, for messages.
        var request: String
        /// Which answer it came in (answers are numbered in the order they are recorded).
        var answer: Int
        var table: String
        var fields: [String: JSONValue]
        /// The members a `$select` answer holds; nil for whole rows.
        var select: [String]?
    }

    /// The outcome of `check()`.
    public struct Check: Sendable {
        public var rowsChecked = 0
        /// Rows that differ from the write answer of their version.
        public var tornRows = 0
        /// Answers holding at least one such row.
        public var tornAnswers = 0
        public var failures: [String] = []
    }

    private struct State {
        var observations: [Observation] = []
        var answers = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Records the rows of one answer (a JSON object per row, as the server sent it). `select`:
    /// the `$select` names of the request, when it had one.
    public func record(_ source: Source, request: String, table: String, rows: [[String: JSONValue]],
                       select: [String]? = nil) {
        let fields = rows.map(Self.normalize)
        let names = select.map { $0.map(Self.canonicalName) }
        state.withLock { state in
            let answer = state.answers
            state.answers += 1
            for row in fields {
                state.observations.append(Observation(source: source, request: request, answer: answer, table: table,
                                                      fields: row, select: names))
            }
        }
    }

    /// Compares every row with the write answer of its version.
    public func check(maximumExamples: Int = 8) -> Check {
        let observations = state.withLock { $0.observations }
        var groups: [String: [Int]] = [:]
        var result = Check()
        for (index, o) in observations.enumerated() {
            guard let id = o.fields["id"]?.stringValue, let version = o.fields["version"]?.stringValue else {
                if o.select == nil { result.failures.append("\(o.request): a row without id or version: \(o.fields)") }
                continue
            }
            groups[o.table + "\u{0}" + id.lowercased() + "\u{0}" + version, default: []].append(index)
        }
        var tornAnswers = Set<Int>()
        var examples: [String] = []
        for (_, members) in groups {
            guard let writer = members.first(where: { observations[$0].source == .write }) else {
                let o = observations[members[0]]
                result.failures.append("\(o.request): shows \(Self.describe(o.fields)), a version no write answer reported")
                continue
            }
            let reference = observations[writer]
            for index in members where index != writer {
                let o = observations[index]
                result.rowsChecked += 1
                let names = o.select ?? Array(Set(reference.fields.keys).union(o.fields.keys))
                let differing = names.filter { reference.fields[$0] != o.fields[$0] }.sorted()
                guard !differing.isEmpty else { continue }
                result.tornRows += 1
                tornAnswers.insert(o.answer)
                if examples.count < maximumExamples {
                    let detail = differing.map { name in
                        "\(name): \(o.fields[name]?.compactText ?? "absent") (committed: \(reference.fields[name]?.compactText ?? "absent"))"
                    }.joined(separator: ", ")
                    examples.append("\(o.request) showed id \(o.fields["id"]?.stringValue ?? "?") at version "
                        + "\(o.fields["version"]?.stringValue ?? "?") with \(detail)")
                }
            }
        }
        result.tornAnswers = tornAnswers.count
        if result.tornRows > 0 {
            result.failures.append("\(result.tornRows) rows in \(tornAnswers.count) answers are not the committed version "
                + "they claim to be, e.g.:\n  " + examples.joined(separator: "\n  "))
        }
        return result
    }

    /// Members without `null` values, G1 system names (`__version`) as G2 names (`version`).
    static func normalize(_ row: [String: JSONValue]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (name, value) in row where !value.isNull { out[canonicalName(name)] = value }
        return out
    }

    static func canonicalName(_ name: String) -> String {
        switch name.lowercased() {
        case "id": return "id"
        case "__createdat", "createdat": return "createdAt"
        case "__updatedat", "updatedat": return "updatedAt"
        case "__version", "version": return "version"
        case "__deleted", "deleted": return "deleted"
        default: return name
        }
    }

    private static func describe(_ fields: [String: JSONValue]) -> String {
        "id \(fields["id"]?.stringValue ?? "?") version \(fields["version"]?.stringValue ?? "?")"
    }
}
