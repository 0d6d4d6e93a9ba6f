import Testing
@testable import TableProtocol

@Suite("$filter parser: grammar, precedence, literals (§8.2–§8.5)")
struct FilterParserTests {
    private func tree(_ text: String) throws -> String {
        try ODataQueryOptions.parseFilter(text).description
    }

    @Test("precedence and associativity", arguments: [
        ("complete eq false or text eq 'x' and complete eq true",
         "((complete eq false) or ((text eq 'x') and (complete eq true)))"),
        ("not complete eq true", "((not complete) eq true)"),
        ("not (complete eq true)", "(not (complete eq true))"),
        ("priority add 1 mul 2 eq 5", "((priority add (1 mul 2)) eq 5)"),
        ("priority mul 2 add 1 gt 7", "(((priority mul 2) add 1) gt 7)"),
        ("a sub b sub c", "((a sub b) sub c)"),
        ("a div b mod c mul d", "(((a div b) mod c) mul d)"),
        ("a eq b eq c", "((a eq b) eq c)"),
        ("-priority lt 0", "((-priority) lt 0)"),
        ("- 2 mul 3", "(-2 mul 3)"),
        ("1 sub -2", "(1 sub -2)"),
        ("a or b or c and d and e", "(a or b or (c and d and e))"),
        ("(a or b) and c", "((a or b) and c)"),
        ("(a and b) and c", "((a and b) and c)"),
        ("not not a", "(not (not a))"),
        ("(((text)))", "text"),
    ])
    func precedence(text: String, expected: String) throws {
        #expect(try tree(text) == expected)
    }

    @Test("literals of §8.4", arguments: [
        ("'milk'", FilterValue.string("milk")),
        ("'it''s'", .string("it's")),
        ("''", .string("")),
        ("''''", .string("'")),
        ("'é ✓'", .string("é ✓")),
        ("42", .number(42)),
        ("42L", .number(42)),
        ("42l", .number(42)),
        ("1.5", .number(1.5)),
        ("2e3", .number(2000)),
        ("2E-3", .number(0.002)),
        ("2.5e+1", .number(25)),
        ("0.5m", .number(0.5)),
        ("0.5M", .number(0.5)),
        ("1.5d", .number(1.5)),
        ("1.5D", .number(1.5)),
        ("1.5f", .number(1.5)),
        ("7F", .number(7)),
        ("-3", .number(-3)),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("null", .null),
        ("guid'5d09cd5a-f305-4b59-afaf-5bb90148c216'", .string("5d09cd5a-f305-4b59-afaf-5bb90148c216")),
        ("datetime'2024-05-01T09:00:00Z'", .date(WireInstant(milliseconds: 1_714_554_000_000))),
        ("datetime'2024-05-01T09:00:00'", .date(WireInstant(milliseconds: 1_714_554_000_000))),
        ("datetimeoffset'2024-05-01T11:00:00+02:00'", .date(WireInstant(milliseconds: 1_714_554_000_000))),
        ("datetimeoffset'2024-05-01T09:00:00.120Z'", .date(WireInstant(milliseconds: 1_714_554_000_120))),
        ("datetimeoffset'2024-05-01T11:00:00.1234567+02:00'",
         .date(WireInstant(ticks: 17_145_540_001_234_567))),
    ])
    func literals(text: String, expected: FilterValue) throws {
        let expression = try ODataQueryOptions.parseFilter(text)
        #expect(expression.node == .literal(expected))
    }

    @Test("members: system names in either spelling and any case; other names are case-sensitive columns")
    func members() throws {
        let cases: [(String, ODataMember)] = [
            ("id", .id), ("ID", .id), ("Id", .id), ("iD", .id),
            ("createdAt", .system(.createdAt)), ("__createdAt", .system(.createdAt)), ("CREATEDAT", .system(.createdAt)),
            ("updatedAt", .system(.updatedAt)), ("__UpdatedAt", .system(.updatedAt)),
            ("version", .system(.version)), ("__version", .system(.version)),
            ("deleted", .system(.deleted)), ("__Deleted", .system(.deleted)),
            ("text", .column("text")), ("Text", .column("Text")), ("__id", .column("__id")),
            ("_x1", .column("_x1")), ("updated_at", .column("updated_at")),
        ]
        for (name, member) in cases {
            #expect(try ODataQueryOptions.parseFilter(name).node == .member(member), "\(name)")
        }
    }

    @Test("tokens may be separated by spaces, tabs, CR and LF")
    func whitespace() throws {
        #expect(try tree("\ttext\r\neq\n'x' ") == "(text eq 'x')")
        #expect(try tree("length(text)eq 4") == "(length(text) eq 4)")
        #expect(try tree("length ( text ) eq 4") == "(length(text) eq 4)")
    }

    @Test("every function parses with its arity")
    func functions() throws {
        let calls = [
            "substringof('a', text)", "startswith(text, 'a')", "endswith(text, 'a')", "indexof(text, 'a')",
            "length(text)", "tolower(text)", "toupper(text)", "trim(text)", "concat(text, 'a')",
            "concat(text, 'a', 1, true)", "substring(text, 1)", "substring(text, 1, 2)", "replace(text, 'a', 'b')",
            "year(createdAt)", "month(createdAt)", "day(createdAt)", "hour(createdAt)", "minute(createdAt)",
            "second(createdAt)", "round(priority)", "floor(priority)", "ceiling(priority)",
        ]
        for call in calls {
            let expression = try ODataQueryOptions.parseFilter(call)
            guard case .call = expression.node else {
                Issue.record("\(call) is not a call")
                continue
            }
        }
        #expect(Set(calls.compactMap { $0.split(separator: "(").first.map(String.init) })
            == Set(FilterFunction.allCases.map(\.rawValue)))
    }

    @Test("100 nested parentheses parse; 101 are an error at the 101st")
    func nestingLimit() throws {
        let ok = String(repeating: "(", count: 100) + "text eq 'x'" + String(repeating: ")", count: 100)
        #expect(try tree(ok) == "(text eq 'x')")
        let deep = String(repeating: "(", count: 101) + "text eq 'x'" + String(repeating: ")", count: 101)
        let error = try #require(ODataTestTable.filterError(deep))
        #expect(error.position == 100)
        #expect(error.message.contains("nesting deeper than 100"))
        // Calls and unary operators nest too.
        let calls = String(repeating: "length(", count: 101) + "text" + String(repeating: ")", count: 101)
        #expect(ODataTestTable.filterError(calls)?.reason.contains("nesting") == true)
        #expect(ODataTestTable.filterError(String(repeating: "not ", count: 101) + "complete")?.position == 400)
        #expect(ODataTestTable.filterError(String(repeating: "not ", count: 100) + "complete") == nil)
    }

    @Test("huge inputs fail cleanly instead of exhausting the stack")
    func hugeInputs() throws {
        let parens = String(repeating: "(", count: 200_000)
        #expect(ODataTestTable.filterError(parens)?.position == 100)
        let chain = "priority" + String(repeating: " add 1", count: 5000) + " eq 1"
        let error = try #require(ODataTestTable.filterError(chain))
        #expect(error.reason.contains("too complex"))
        let limit = FilterParser.maximumHeight
        let allowed = "priority" + String(repeating: " add 1", count: limit - 1)
        let expression = try ODataQueryOptions.parseFilter(allowed)
        #expect(expression.evaluate(ODataTestTable.rows[0]) == .number(Double(3 + limit - 1)))
        let tooLong = allowed + " add 1"
        #expect(ODataTestTable.filterError(tooLong)?.position == tooLong.unicodeScalars.count - 5)
        // A long `or` list is one level deep, whatever its length.
        let list = (0..<5000).map { "id eq '\($0)'" }.joined(separator: " or ")
        let ors = try ODataQueryOptions.parseFilter(list)
        #expect(ors.matches(ODataTestRow(id: "4999", createdAt: .epoch, updatedAt: .epoch)))
        #expect(!ors.matches(ODataTestRow(id: "5000", createdAt: .epoch, updatedAt: .epoch)))
    }

    @Test("the printed tree parses back to an equal tree")
    func roundTrip() throws {
        let texts = [
            "(text eq 'it''s') and not (priority mod 2 ne -1.5)",
            "substring(text, 1, 2) eq 'il' or length(trim(text)) ge 4",
            "updatedAt gt datetimeoffset'2024-05-01T09:00:00.1234567Z' and __createdAt le datetime'2024-05-01'",
            "concat(text, 1e21, true, null) eq guid'x' and - (priority) lt 0",
        ]
        for text in texts {
            let expression = try ODataQueryOptions.parseFilter(text)
            #expect(try ODataQueryOptions.parseFilter(expression.description) == expression, "\(text)")
        }
    }

    @Test("positions count Unicode scalars from 0")
    func positions() throws {
        let expression = try ODataQueryOptions.parseFilter("text eq 'é✓' or priority gt 1")
        guard case .or(let operands) = expression.node else {
            Issue.record("not an or")
            return
        }
        #expect(expression.position == 13)
        #expect(operands[1].position == 25)
        #expect(ODataTestTable.filterError("'é✓' eq #")?.position == 8)
    }

    @Test("the user columns a filter names")
    func referencedColumns() throws {
        let expression = try ODataQueryOptions.parseFilter(
            "nosuchcolumn eq 1 or (text eq 'x' and length(note) gt id) or __updatedAt eq null")
        #expect(expression.referencedColumns == ["nosuchcolumn", "text", "note"])
    }
}
