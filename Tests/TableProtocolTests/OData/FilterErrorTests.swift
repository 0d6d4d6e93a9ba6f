import Testing
@testable import TableProtocol

@Suite("$filter errors: a value with a position and a reason, never a crash")
struct FilterErrorTests {
    @Test("the message has the form of §3.5")
    func messageForm() throws {
        let error = try #require(ODataTestTable.filterError("text eq"))
        #expect(error.message == "Invalid $filter at position 7: expected an expression after 'eq'.")
        #expect(error.option == "$filter")
    }

    /// (text, position, a fragment of the reason)
    @Test("checklist item 126 and the other syntax errors", arguments: [
        // Item 126.
        ("text eq", 7, "expected an expression after 'eq'"),
        ("text eq 'abc", 8, "unterminated string"),
        ("foo(text)", 0, "unknown function 'foo'"),
        ("text EQ 'x'", 5, "keywords are lower case ('eq')"),
        ("(text eq 'x'", 12, "')' should close the '(' at position 0"),
        ("a/b eq 1", 1, "'/' is not supported"),
        // Keywords and functions are lower case only.
        ("text eq 'x' AND complete eq true", 12, "unexpected 'AND'"),
        ("Length(text) eq 4", 0, "function names are lower case ('length')"),
        ("NOT complete", 4, "unexpected 'complete'"),
        // Arity.
        ("length(text, 1) eq 1", 0, "'length' takes 1 argument, but 2 were given"),
        ("length() eq 0", 0, "'length' takes 1 argument, but 0 were given"),
        ("concat('a') eq 'a'", 0, "'concat' takes 2 or more arguments, but 1 was given"),
        ("substring(text) eq 'a'", 0, "'substring' takes 2 or 3 arguments"),
        ("substring(text, 1, 2, 3) eq 'a'", 0, "'substring' takes 2 or 3 arguments"),
        ("replace(text, 'a') eq 'b'", 0, "'replace' takes 3 arguments"),
        ("substringof('a') eq true", 0, "'substringof' takes 2 arguments"),
        // Structure.
        ("", 0, "the expression is empty"),
        ("   ", 3, "the expression is empty"),
        ("()", 0, "empty parentheses"),
        ("text eq ()", 8, "empty parentheses"),
        ("text eq 'x')", 11, "unexpected ')' after the end of the expression"),
        ("text eq 'x',", 11, "unexpected ','"),
        ("text eq 'x' text", 12, "unexpected 'text'"),
        ("text 'x'", 5, "unexpected 'x'"),
        ("eq 'x'", 0, "found keyword 'eq'"),
        ("text eq and", 8, "found keyword 'and'"),
        ("text eq 'x' and", 15, "expected an expression after 'and'"),
        ("not", 3, "expected an expression after 'not'"),
        ("-", 1, "expected an expression after '-'"),
        ("length(text,) eq 1", 12, "expected an expression after ','"),
        ("length(text eq 1", 16, "expected ',' or ')'"),
        ("text eq ,", 8, "found ','"),
        ("datetime '2024-05-01'", 9, "unexpected '2024-05-01'"),
        // Lexical.
        ("text eq \"x\"", 8, "unexpected character '\"'"),
        ("text eq #", 8, "unexpected character '#'"),
        ("text eq 'x' + 'y'", 12, "unexpected character '+'"),
        ("text eq 1.", 8, "invalid number '1.'"),
        ("text eq 12abc", 8, "invalid number '12abc'"),
        ("text eq 1.5L", 8, "invalid number '1.5L'"),
        ("text eq 1e", 8, "invalid number"),
        ("text eq 1e400", 8, "does not fit a double"),
        ("text eq 0x10", 8, "invalid number"),
        ("text eq .5", 8, "unexpected character '.'"),
        ("id eq guid'abc", 10, "unterminated guid literal"),
        ("a/b", 1, "member access"),
        ("text/length eq 1", 4, "member access"),
        ("text eq 'a\u{1}'' ", 8, "unterminated string"),
        ("text eq \u{1}", 8, "unexpected character 'U+1'"),
        ("text eq é", 8, "unexpected character 'é'"),
        // Dates (§8.4: the forms of §4.3.2, 0 to 7 fractional digits).
        ("updatedAt gt datetime'2024-13-01T00:00Z'", 22, "invalid datetime literal"),
        ("updatedAt gt datetimeoffset'2024-02-30T00:00Z'", 28, "day 30"),
        ("updatedAt gt datetimeoffset'2024-05-01T24:00Z'", 28, "hour 24"),
        ("updatedAt gt datetimeoffset'2024-05-01T09:00:00.12345678Z'", 28, "more than 7 fractional digits"),
        ("updatedAt gt datetimeoffset'yesterday'", 28, "is not a date of the form"),
        ("updatedAt gt datetimeoffset'2024-05-01", 27, "unterminated datetimeoffset literal"),
    ])
    func syntaxErrors(text: String, position: Int, fragment: String) throws {
        let error = try #require(ODataTestTable.filterError(text), "\(text) parsed")
        #expect(error.position == position, "\(text): \(error.message)")
        #expect(error.message.contains("at position \(position):"), "\(text): \(error.message)")
        #expect(error.reason.contains(fragment), "\(text): \(error.message)")
        #expect(error.message.hasPrefix("Invalid $filter at position "))
        #expect(error.message.hasSuffix("."))
    }

    @Test("a long offending token is shortened in the message")
    func longTokens() throws {
        let long = String(repeating: "x", count: 500)
        let error = try #require(ODataTestTable.filterError("text eq 'a' \(long)"))
        #expect(error.message.count < 150)
        #expect(error.message.contains("…"))
    }
}
