import Testing
import TableProtocol
import TodoModel
@testable import TodoServer

/// `renderObject` writes bytes directly; they must be those of the row built as a `JSONValue`
/// dictionary and written by the JSON writer, as item answers were before.
@Suite struct RowRendererTests {
    /// The rendering `renderObject` replaced, kept as the reference.
    private func reference(_ r: RowRenderer, _ row: StoredRow, _ schema: TableSchema) -> JSONValue {
        var o: [String: JSONValue] = [:]
        if let select = r.select {
            for name in select {
                if name.lowercased() == "id" {
                    o["id"] = .string(row.id)
                } else if let p = SystemProperty(anySpelling: name) {
                    o[r.generation.name(p)] = RowRenderer.value(p, row)
                } else {
                    o[name] = row.columns[name] ?? .null
                }
            }
            return .object(o)
        }
        o["id"] = .string(row.id)
        for name in schema.columns.keys { o[name] = row.columns[name] ?? .null }
        // The row's own columns, even those the schema lacks: a row is always shown whole.
        for (name, value) in row.columns where schema.columns[name] == nil { o[name] = value }
        let properties = r.generation == .mobileApps ? Set(SystemProperty.allCases) : r.systemProperties
        for p in properties { o[r.generation.name(p)] = RowRenderer.value(p, row) }
        return .object(o)
    }

    @Test func bytesMatchTheJSONWriter() {
        let row = StoredRow(
            id: "Row \"1\" \\ é\n", columns: ["text": .string("tab\t quote\" 😀 \u{1}"), "complete": .bool(false),
                                             "n": .number(-2.5), "big": .number(12_345_678), "cleared": .null,
                                             "updatedAt": .string("a column spelled like a system property")],
            createdAt: 1_700_000_000_123, updatedAt: -1, version: 0x0102_0304_0506, deleted: true)
        let columns: [String: ColumnType?] = ["text": .string, "complete": .boolean, "n": .number, "big": .number,
                                              "cleared": nil, "never": .string, "id": .string, "updatedAt": .string,
                                              "__version": .string, "Z": .number, "\u{e9}": .string]
        let schemas = [TableSchema(name: "t", softDelete: true, columns: columns),
                       TableSchema(name: "t", softDelete: true, columns: [:])]
        let selects: [[String]?] = [nil, ["id"], ["ID", "text", "__updatedAt", "updatedAt", "version", "never"],
                                    ["text", "text", "id", "Id"], ["__version"], ["deleted", "__createdAt", "big"]]
        let propertySets: [Set<SystemProperty>] = [[], [.version], [.createdAt, .deleted], Set(SystemProperty.allCases)]
        for generation in Generation.allCases {
            for schema in schemas {
                for select in selects {
                    for properties in propertySets {
                        let renderer = RowRenderer(generation: generation, systemProperties: properties, select: select)
                        let expected = reference(renderer, row, schema)
                        let rendered = renderer.renderObject(row, schema: schema)
                        #expect(String(decoding: rendered.bytes, as: UTF8.self) == expected.compactText,
                                "\(generation) \(String(describing: select)) \(properties)")
                        #expect(rendered.showsVersion == (expected["__version"] != nil))
                        if let text = rendered.versionText { #expect(text == VersionText.encode(row.version)) }
                    }
                }
            }
        }
        let conflict = RowRenderer.conflict(.mobileServices).renderObject(row, schema: schemas[0])
        #expect(String(decoding: conflict.bytes, as: UTF8.self)
            == reference(.conflict(.mobileServices), row, schemas[0]).compactText)
    }

    /// A page renders each row as `renderObject` does, also a row with columns the page's schema
    /// lacks (issue 22: such a row lost them). Names are unique here; with a name listed twice in
    /// `$select` the two keep different members, as documented.
    @Test func pagesShowEveryRowWholeWhateverItsSchema() {
        let schema = TableSchema(name: "t", softDelete: true, columns: ["k": .number, "text": .string, "old": nil])
        let rows = [
            StoredRow(id: "a", columns: ["k": 1, "text": "x"], createdAt: 1, updatedAt: 2, version: 3),
            StoredRow(id: "b", columns: ["k": 2, "c2": 2], createdAt: 1, updatedAt: 3, version: 4),  // c2: not in schema
            StoredRow(id: "c", columns: [:], createdAt: 1, updatedAt: 4, version: 5, deleted: true),
            StoredRow(id: "d", columns: ["z": .null, "a": .bool(true), "old": "kept"], createdAt: 1, updatedAt: 5, version: 6),
        ]
        for generation in Generation.allCases {
            for select in [nil, ["id", "k", "c2", "version"]] as [[String]?] {
                let renderer = RowRenderer(generation: generation, systemProperties: [.version, .deleted], select: select)
                let page = String(decoding: renderer.renderArray(rows, schema: schema), as: UTF8.self)
                let objects = rows.map { String(decoding: renderer.renderObject($0, schema: schema).bytes, as: UTF8.self) }
                #expect(page == "[" + objects.joined(separator: ",") + "]", "\(generation) \(String(describing: select))")
                #expect(objects[1] == reference(renderer, rows[1], schema).compactText)
            }
        }
        let whole = String(decoding: RowRenderer(generation: .mobileApps, systemProperties: [], select: nil)
            .renderArray([rows[1]], schema: schema), as: UTF8.self)
        #expect(whole.contains(#""c2":2"#) && whole.contains(#""old":null"#), "\(whole)")
    }

    @Test func versionSelectorMatchesTheSplitReading() {
        // The reading it replaced: split at ".", compare the parts.
        func reference(_ value: String, _ major: String, _ patchRequired: Bool) -> Bool {
            let parts = value.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3 || (!patchRequired && parts.count == 2), parts[0] == major, parts[1] == "0" else { return false }
            if parts.count == 3 { return !parts[2].isEmpty && parts[2].utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
            return true
        }
        let values = ["2.0.0", "2.0.1", "2.0.10", "2.0", "2.0.", "2.0.x", "2.0.1.2", "2.00.1", "2.1.0", "22.0.0", "3.0",
                      "3.0.0", "3.0.", "3", "", ".", "..", "2..0", "2.0.0 ", " 2.0.0", "2.0.0\u{301}", "2\u{301}.0.0",
                      ".\u{301}0.0", "2.0.\u{661}", "2.0.0a", "2.0.-1", "2.0.+1", "\u{ff12}.0.0"]
        for value in values {
            for (major, patch) in [("2", true), ("3", false), ("2", false), ("3", true)] {
                #expect(GenerationSelector.matches(value, major: Character(major), patchRequired: patch)
                    == reference(value, major, patch), "\(value) \(major) \(patch)")
            }
        }
    }
}
