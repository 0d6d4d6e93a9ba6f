import Testing
@testable import TableProtocol

/// Three-valued logic, comparisons and arithmetic (§8.6) on constant expressions.
@Suite("$filter semantics: logic, comparisons, arithmetic (§8.6)")
struct FilterSemanticsTests {
    private func value(_ text: String) throws -> FilterValue {
        try ODataTestTable.value(text)
    }

    /// `null` is the unknown truth value; a non-boolean operand counts as unknown.
    @Test("§8.6.3: and / or truth table", arguments: [
        ("true", "true", "true", "true"),
        ("true", "false", "false", "true"),
        ("true", "null", "null", "true"),
        ("false", "false", "false", "false"),
        ("false", "null", "false", "null"),
        ("null", "null", "null", "null"),
        ("true", "5", "null", "true"),
        ("false", "'x'", "false", "null"),
    ])
    func truthTable(a: String, b: String, and: String, or: String) throws {
        let expectedAnd = try value(and)
        let expectedOr = try value(or)
        // Both operand orders: the tables are symmetric.
        #expect(try value("\(a) and \(b)") == expectedAnd, "\(a) and \(b)")
        #expect(try value("\(b) and \(a)") == expectedAnd, "\(b) and \(a)")
        #expect(try value("\(a) or \(b)") == expectedOr, "\(a) or \(b)")
        #expect(try value("\(b) or \(a)") == expectedOr, "\(b) or \(a)")
    }

    @Test("§8.6.3: not")
    func not() throws {
        #expect(try value("not true") == .bool(false))
        #expect(try value("not false") == .bool(true))
        #expect(try value("not null") == .null)
        #expect(try value("not 1") == .null)
        #expect(try value("not (1 gt null)") == .null)
    }

    @Test("§8.6.2: comparisons", arguments: [
        ("null eq null", FilterValue.bool(true)),
        ("1 eq null", .bool(false)),
        ("null eq 'x'", .bool(false)),
        ("null ne null", .bool(false)),
        ("1 ne null", .bool(true)),
        ("null ne 1", .bool(true)),
        ("(1 gt null) eq null", .bool(true)),
        ("1 gt null", .null),
        ("null le null", .null),
        ("2 gt 10", .bool(false)),
        ("'2' gt '10'", .bool(true)),
        ("1 eq 1.0", .bool(true)),
        ("1.5 ge 1.5", .bool(true)),
        ("false lt true", .bool(true)),
        ("true le false", .bool(false)),
        ("'a' lt 'b'", .bool(true)),
        ("'B' lt 'a'", .bool(true)),
        ("'' lt 'a'", .bool(true)),
        ("1 eq '1'", .null),
        ("true eq 1", .null),
        ("true ne 'true'", .null),
        ("datetime'2024-05-01' eq '2024-05-01T00:00:00Z'", .bool(true)),
        ("'2024-05-01T00:00:00.0000001Z' gt datetime'2024-05-01'", .bool(true)),
        ("datetime'2024-05-01' eq 'May 1st'", .null),
        ("datetime'2024-05-01' eq 20240501", .null),
    ])
    func comparisons(text: String, expected: FilterValue) throws {
        #expect(try value(text) == expected)
    }

    @Test("§8.6.4: arithmetic", arguments: [
        ("5 div 2", FilterValue.number(2.5)),
        ("7 mod 3", .number(1)),
        ("-7 mod 3", .number(-1)),
        ("7 mod -3", .number(1)),
        ("-7 mod -3", .number(-1)),
        ("7.5 mod 2", .number(1.5)),
        ("5 div 0", .null),
        ("5 mod 0", .null),
        ("0 div 0", .null),
        ("1 add null", .null),
        ("'a' add 1", .null),
        ("true mul 2", .null),
        ("-'a'", .null),
        ("-(2 sub 5)", .number(3)),
        ("1e308 mul 10", .null),
        ("0.1 add 0.2", .number(0.1 + 0.2)),
        ("2 sub 3 sub 4", .number(-5)),
        ("priority add 1", .null),
    ])
    func arithmetic(text: String, expected: FilterValue) throws {
        #expect(try value(text) == expected)
    }

    @Test("evaluation never fails: every operator over every pair of value types")
    func everyTypePair() throws {
        let values = ["null", "true", "1.5", "'x'", "datetime'2024-05-01'", "'2024-05-01'"]
        for op in FilterBinaryOperator.allCases {
            for a in values {
                for b in values {
                    let result = try value("\(a) \(op.rawValue) \(b)")
                    if op.isComparison {
                        switch result {
                        case .bool, .null: break
                        default: Issue.record("\(a) \(op) \(b) gave \(result)")
                        }
                    } else if case .number = result {
                        #expect(a == "1.5" && b == "1.5")
                    } else {
                        #expect(result == .null)
                    }
                }
            }
        }
    }
}
