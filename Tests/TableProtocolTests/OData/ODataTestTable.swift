@testable import TableProtocol
import TodoModel

/// A stored row for evaluator tests: system properties plus user columns as JSON.
struct ODataTestRow: FilterRow {
    var id: String
    var createdAt: WireInstant
    var updatedAt: WireInstant
    var version = "AAAAAAAAB9E="
    var deleted = false
    var columns: [String: JSONValue] = [:]

    func value(of member: ODataMember) -> FilterValue {
        switch member {
        case .id: return .string(id)
        case .system(.createdAt): return .date(createdAt)
        case .system(.updatedAt): return .date(updatedAt)
        case .system(.version): return .string(version)
        case .system(.deleted): return .bool(deleted)
        case .column(let name): return FilterValue(columns[name] ?? .null)
        }
    }
}

/// The small `todoitem` table of the checklist (§12): text, complete, priority, note.
enum ODataTestTable {
    static func instant(_ text: String) -> WireInstant {
        guard let instant = WireInstant(wireText: text) else { fatalError("bad test date \(text)") }
        return instant
    }

    static let rows: [ODataTestRow] = [
        ODataTestRow(id: "a", createdAt: instant("2024-05-01T09:00:00.000Z"), updatedAt: instant("2024-05-01T09:00:00.120Z"),
                columns: ["text": "milk", "complete": false, "priority": 3, "note": nil,
                          "due": "2024-05-01T11:00:00+02:00"]),
        ODataTestRow(id: "b", createdAt: instant("2023-12-31T23:59:59.999Z"), updatedAt: instant("2024-05-01T09:00:00.123Z"),
                columns: ["text": "Milk", "complete": true, "priority": 1, "note": "x", "due": "not a date"]),
        ODataTestRow(id: "c", createdAt: instant("2024-02-29T12:30:45.500Z"), updatedAt: instant("2024-05-02T00:00:00.000Z"),
                columns: ["text": " milk\t", "complete": false, "priority": 2]),
        ODataTestRow(id: "d", createdAt: instant("2024-05-01T09:00:00.000Z"), updatedAt: instant("2024-05-03T10:00:00.000Z"),
                columns: ["text": "I love it!", "complete": true, "priority": 5, "note": "n"]),
        ODataTestRow(id: "e", createdAt: instant("2025-01-01T00:00:00.000Z"), updatedAt: instant("2024-05-01T09:00:00.120Z"),
                deleted: true, columns: ["text": "it's", "priority": nil]),
        ODataTestRow(id: "f", createdAt: instant("2024-04-30T00:00:00.000Z"), updatedAt: instant("2024-04-30T00:00:00.000Z"),
                columns: ["text": "a b", "complete": true, "priority": 4, "note": ""]),
    ]

    /// The ids of the rows the filter selects, in table order.
    static func ids(_ filter: String) throws -> String {
        let expression = try ODataQueryOptions.parseFilter(filter)
        return rows.filter { expression.matches($0) }.map(\.id).joined(separator: ",")
    }

    /// The value of a filter expression that needs no row.
    static func value(_ text: String) throws -> FilterValue {
        try ODataQueryOptions.parseFilter(text).evaluate(FilterRowFunction { _ in .null })
    }

    /// The error thrown for a text that must not parse.
    static func filterError(_ text: String) -> ODataQueryError? {
        do {
            _ = try ODataQueryOptions.parseFilter(text)
            return nil
        } catch {
            return error
        }
    }
}

