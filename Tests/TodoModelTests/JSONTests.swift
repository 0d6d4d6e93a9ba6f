import Testing
@testable import TodoModel

@Suite struct JSONTests {
    @Test func canonicalFormSortsKeysIndentsAndEndsWithNewline() throws {
        let value = try JSONValue.parse(#"{"b": [1, 2.5, "x"], "a": {"z": null, "y": true}, "c": {}, "d": []}"#)
        let expected = """
            {
              "a": {
                "y": true,
                "z": null
              },
              "b": [
                1,
                2.5,
                "x"
              ],
              "c": {},
              "d": []
            }

            """
        #expect(value.canonicalText == expected)
    }

    @Test func rewritingUnchangedDataGivesIdenticalBytes() throws {
        let text = #"{"text":"Buy milk \"now\"\n","n":-0.5,"big":12345678901234,"e":1e300,"u":"é😀\u0001"}"#
        let once = try JSONValue.parse(text).canonicalBytes()
        let twice = try JSONValue.parse(once).canonicalBytes()
        #expect(once == twice)
    }

    @Test(arguments: [
        ("1", "1"), ("1.0", "1"), ("-0", "0"), ("3.25", "3.25"), ("1e2", "100"), ("0.1", "0.1"),
        ("9007199254740992", "9007199254740992"), ("9007199254740993", "9007199254740992"),
        ("1e21", "1e+21"), ("1.5e-7", "1.5e-07"),
    ])
    func numbersFollowTheProtocolForm(input: String, output: String) throws {
        #expect(try JSONValue.parse(input).compactText == output)
    }

    /// Each refusal says where (the byte offset) and what is wrong: the reason is part of the
    /// messages that name a damaged file.
    @Test(arguments: [
        ("", 0, "unexpected end of input"), ("{", 1, "expected a member name"), ("[1,]", 3, "unexpected character ']'"),
        ("{\"a\":1,}", 7, "expected a member name"), ("{\"a\" 1}", 5, "expected ':'"), ("01", 1, "leading zero in a number"),
        ("1.", 2, "invalid number"), (".5", 0, "unexpected character '.'"), ("-", 1, "invalid number"),
        ("+1", 0, "unexpected character '+'"), ("tru", 0, "invalid literal"), ("nul", 0, "invalid literal"),
        ("\"abc", 4, "unterminated string"), ("\"\\x\"", 2, "invalid escape '\\x'"), ("\"\\u12\"", 3, "short \\u escape"),
        ("\"\\ud800\"", 7, "unpaired surrogate escape"), ("{\"a\":1,\"a\":2}", 7, "duplicate member \"a\""),
        ("1 2", 2, "unexpected text after the JSON value"), ("\"a\u{01}b\"", 2, "control character in a string; escape it"),
        ("1e400", 0, "number out of range"), ("[", 1, "unexpected end of input"),
    ])
    func malformedInputIsRejected(input: String, offset: Int, reason: String) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try JSONValue.parse(input) }
    }

    @Test func invalidUTF8IsRejectedWithItsOffset() {
        let bytes: [UInt8] = Array("{\"a\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        #expect(throws: JSONParseError(offset: 7, reason: "invalid UTF-8 in a string")) { try JSONValue.parse(bytes) }
    }

    @Test func duplicateMembersAreRejected() {
        #expect(throws: JSONParseError(offset: 9, reason: "duplicate member \"a\"")) { try JSONValue.parse(#"{"a": 1, "a": 2}"#) }
    }

    @Test func deepNestingIsRejectedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        #expect(error?.reason == "nesting deeper than \(JSONValue.maximumDepth)", "\(String(describing: error))")
        #expect(error?.offset == JSONValue.maximumDepth, "stopped at the first bracket too deep: \(String(describing: error))")
        let ok = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        #expect(throws: Never.self) { try JSONValue.parse(ok) }
    }

    @Test func escapesAndSurrogatesDecode() throws {
        #expect(try JSONValue.parse(#""\ud83d\ude00 \u00e9 \/ \t""#) == .string("😀 é / \t"))
    }

    @Test func equalityFollowsSyncSpec() {
        #expect(JSONValue.number(1) == .number(1.0))
        // Precomposed and decomposed é are different strings to the protocol (no normalisation).
        #expect(JSONValue.string("\u{E9}") != .string("e\u{301}"))
        #expect(JSONValue.string("a") != .number(1))
        #expect(JSONValue.object(["a": 1]) == .object(["a": 1.0]))
        #expect(JSONValue.object(["a": 1]) != .object(["a": 1, "b": 2]))
    }

    @Test func controlCharactersAreEscapedOnOutput() {
        #expect(JSONValue.string("a\u{01}\"\\\n").compactText == #""a\u0001\"\\\n""#)
    }
}

