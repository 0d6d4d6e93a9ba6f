import Testing
@testable import TableProtocol

@Suite("$filter functions: results, null and type rules (§8.7)")
struct FilterFunctionTests {
    private func value(_ text: String) throws -> FilterValue {
        try ODataTestTable.value(text)
    }

    @Test("results", arguments: [
        ("substringof('ell', 'hello')", FilterValue.bool(true)),
        ("substringof('hello', 'ell')", .bool(false)),
        ("substringof('', 'x')", .bool(true)),
        ("startswith('hello', 'he')", .bool(true)),
        ("startswith('hello', '')", .bool(true)),
        ("startswith('he', 'hello')", .bool(false)),
        ("endswith('hello', 'llo')", .bool(true)),
        ("endswith('lo', 'hello')", .bool(false)),
        ("indexof('hello', 'l')", .number(2)),
        ("indexof('hello', 'z')", .number(-1)),
        ("indexof('hello', '')", .number(0)),
        ("indexof('\u{E9}t\u{E9}', 't')", .number(1)),
        ("indexof('e\u{301}t\u{E9}', 't')", .number(2)),
        ("length('')", .number(0)),
        ("length('\u{E9}')", .number(1)),
        ("length('e\u{301}')", .number(2)),
        ("length('👍🏽')", .number(2)),
        ("tolower('ÀBC')", .string("àbc")),
        ("toupper('straße')", .string("STRASSE")),
        ("tolower('İ')", .string("i\u{307}")),
        ("trim('  x y \t')", .string("x y")),
        ("trim('\u{A0}\u{2003}x\u{3000}')", .string("x")),
        ("trim('   ')", .string("")),
        ("concat('a', 'b')", .string("ab")),
        ("concat('a', 1, 2.5, true, false)", .string("a12.5truefalse")),
        ("concat(1, 2)", .string("12")),
        ("concat('at ', datetime'2024-05-01')", .string("at 2024-05-01T00:00:00.000Z")),
        ("substring('hello', 1)", .string("ello")),
        ("substring('hello', 0, 2)", .string("he")),
        ("substring('hello', -3)", .string("hello")),
        ("substring('hello', 10)", .string("")),
        ("substring('hello', 1, -1)", .string("")),
        ("substring('hello', 1, 100)", .string("ello")),
        ("substring('hello', 1.9, 2.9)", .string("el")),
        ("substring('hello', 1e300)", .string("")),
        ("substring('e\u{301}x', 1)", .string("\u{301}x")),
        ("replace('aaa', 'a', 'b')", .string("bbb")),
        ("replace('aaaa', 'aa', 'a')", .string("aa")),
        ("replace('abc', '', 'x')", .string("abc")),
        ("replace('abc', 'z', 'x')", .string("abc")),
        ("replace('a.b.c', '.', '')", .string("abc")),
        ("year(datetime'2024-02-29T23:59:58.999Z')", .number(2024)),
        ("month(datetime'2024-02-29T23:59:58.999Z')", .number(2)),
        ("day(datetime'2024-02-29T23:59:58.999Z')", .number(29)),
        ("hour(datetime'2024-02-29T23:59:58.999Z')", .number(23)),
        ("minute(datetime'2024-02-29T23:59:58.999Z')", .number(59)),
        ("second(datetime'2024-02-29T23:59:58.999Z')", .number(58)),
        ("day(datetimeoffset'2024-03-01T01:00:00+02:00')", .number(29)),
        ("year('2024-12-31T22:00:00-05:00')", .number(2025)),
        ("round(2.5)", .number(3)),
        ("round(-2.5)", .number(-3)),
        ("round(2.4)", .number(2)),
        ("round(-0.4)", .number(0)),
        ("floor(-1.5)", .number(-2)),
        ("floor(1.5)", .number(1)),
        ("ceiling(-1.5)", .number(-1)),
        ("ceiling(1.2)", .number(2)),
    ])
    func results(text: String, expected: FilterValue) throws {
        #expect(try value(text) == expected, "\(text)")
    }

    @Test("a null argument gives null; so does an argument of the wrong type", arguments: [
        "substringof(null, 'x')", "substringof('x', null)", "substringof(1, 'x')",
        "startswith(null, 'x')", "startswith('x', 1)", "endswith(true, 'x')", "endswith('x', null)",
        "indexof(null, 'x')", "indexof('x', 1)", "length(null)", "length(5)",
        "tolower(null)", "tolower(1)", "toupper(null)", "toupper(true)", "trim(null)", "trim(2)",
        "concat('a', null)", "concat(null, 'a')", "concat('a', 'b', null)",
        "substring(null, 1)", "substring('x', null)", "substring('x', '1')", "substring('x', 1, null)",
        "substring(1, 1)", "replace(null, 'a', 'b')", "replace('x', null, 'b')", "replace('x', 'a', 1)",
        "year(null)", "year('not a date')", "year(2024)", "month(true)", "day('2024-02-30')",
        "hour(null)", "minute('x')", "second(1)",
        "round(null)", "round('1')", "floor(null)", "floor(true)", "ceiling(null)", "ceiling('x')",
    ])
    func nullAndTypeRules(text: String) throws {
        #expect(try value(text) == .null, "\(text)")
    }

    @Test("a function with the wrong argument count, built by hand, evaluates to null")
    func handBuiltArity() {
        let call = FilterExpression(.call(.length, []))
        #expect(call.evaluate(FilterRowFunction { _ in .null }) == .null)
    }
}
