import Testing
@testable import TodoModel

/// The parser's fast paths (unsafe buffer, ASCII strings, short integers) and the writer's must
/// not change a result: every expectation here was recorded from the code before them.
@Suite struct JSONFastPathTests {
    /// Inputs whose parse results (value or exact error) were recorded from the parser before it read
    /// through an unsafe buffer with ASCII and integer fast paths.
    static let parseCorpus: [String] = [
        "", "   ", "{", "}", "[", "[1,]", "[1 2]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "{\"a\":1 \"b\":2}", "{\"a\":}",
        "tru", "nulll", "fals", " true ", "\tnull\n", "x", "\u{7F}", "1 2",
        "\"abc", "\"ab\\", "\"a\\x\"", "\"\\u12\"", "\"\\uZZZZ\"", "\"\\ud800\"", "\"\\ud800\\u0041\"", "\"\\udc00\"",
        "\"\\ud83d\\ude00\"", "\"a\u{01}b\"", "\"é\u{01}\"", "\"\\n\u{1F}\"", "\"\"", "\"\\\"\"", "\"é\\n😀\"",
        "\"\\u00e9x\"", "\"a\\u0000b\"", "\"\\/\"", "\"plain ascii text\"", "\"tab\\there\"",
        "01", "-01", "-", "-a", "1.", "1.e5", "1e", "1e+", ".5", "+1", "1e400", "-1e400", "1e-400", "0", "-0", "-0.0",
        "123456789012345", "-123456789012345", "1234567890123456", "12345678901234567890", "100000000000000000000000",
        "9007199254740993", "1E2", "1.5e-7", "1.0", "0.1", "2.5", "[1,-0,0.5,1e2,007]", "[0,-0,1,-1,999999999999999]",
        "{\"a\":1,\"a\":2}", "{\"é\":1,\"e\u{301}\":2}", "{\"\\u0061\":1,\"a\":2}", "{\"a\":{\"b\":1,\"b\":[}}",
        "{}", "[]", "{ }", "[ ]", "{\"k\":{},\"l\":[],\"m\":[{}]}",
        "{\"m01\":1,\"m02\":2,\"m03\":3,\"m04\":4,\"m05\":5,\"m06\":6,\"m07\":7,\"m08\":8,\"m09\":9,\"m10\":10,\"m11\":11,\"m12\":12,\"m13\":13,\"m14\":14,\"m15\":15,\"m16\":16,\"m17\":17,\"m18\":18,\"m19\":19,\"m20\":20}",
        "{\"z\":1,\"é\":2,\"E\":3,\"a\\\"b\":4,\"\":5,\"a\\u0001\":6,\"ab\":7,\"a\":8,\"日本\":9,\"😀\":10}",
        String(repeating: "[", count: 257) + String(repeating: "]", count: 257),
        String(repeating: "{\"a\":", count: 257) + "1" + String(repeating: "}", count: 257),
    ]

    /// Byte inputs that are not valid UTF-8 (a Swift string cannot hold them).
    static let byteCorpus: [[UInt8]] = [
        [0x22, 0x61, 0xC3, 0x28, 0x22],              // "a\xC3(" in a plain run
        [0x22, 0x5C, 0x6E, 0xFF, 0x22],              // after an escape
        [0x22, 0xFF, 0x5C, 0x6E, 0x22],              // before an escape
        [0x22, 0xFF, 0x01, 0x22],                    // control character after invalid UTF-8
        [0x22, 0xED, 0xA0, 0x80, 0x22],              // an encoded surrogate
        [0x22, 0xC0, 0xAF, 0x22],                    // overlong '/'
        [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],  // in a member name
        [0x22, 0x61, 0x62, 0xF0, 0x9F, 0x98, 0x22],  // truncated 4-byte sequence at the end
    ]

    static let parseExpected: [String] = [
        "error unexpected end of input at byte 0",
        "error unexpected end of input at byte 3",
        "error expected a member name at byte 1",
        "error unexpected character '}' at byte 0",
        "error unexpected end of input at byte 1",
        "error unexpected character ']' at byte 3",
        "error expected ',' or ']' at byte 3",
        "error expected a member name at byte 7",
        "error expected ':' at byte 5",
        "error expected a member name at byte 1",
        "error expected ',' or '}' at byte 7",
        "error unexpected character '}' at byte 5",
        "error invalid literal at byte 0",
        "error unexpected text after the JSON value at byte 4",
        "error invalid literal at byte 0",
        "ok true",
        "ok null",
        "error unexpected character 'x' at byte 0",
        "error unexpected character '\\x7f' at byte 0",
        "error unexpected text after the JSON value at byte 2",
        "error unterminated string at byte 4",
        "error unterminated escape at byte 4",
        "error invalid escape '\\x' at byte 3",
        "error short \\u escape at byte 3",
        "error invalid hex digit in \\u escape at byte 3",
        "error unpaired surrogate escape at byte 7",
        "error unpaired surrogate escape at byte 13",
        "error unpaired surrogate escape at byte 7",
        "ok \"😀\"",
        "error control character in a string; escape it at byte 2",
        "error control character in a string; escape it at byte 3",
        "error control character in a string; escape it at byte 3",
        "ok \"\"",
        "ok \"\\\"\"",
        "ok \"é\\n😀\"",
        "ok \"éx\"",
        "ok \"a\\u0000b\"",
        "ok \"/\"",
        "ok \"plain ascii text\"",
        "ok \"tab\\there\"",
        "error leading zero in a number at byte 1",
        "error leading zero in a number at byte 2",
        "error invalid number at byte 1",
        "error invalid number at byte 1",
        "error invalid number at byte 2",
        "error invalid number at byte 2",
        "error invalid number at byte 2",
        "error invalid number at byte 3",
        "error unexpected character '.' at byte 0",
        "error unexpected character '+' at byte 0",
        "error number out of range at byte 0",
        "error number out of range at byte 0",
        "ok 0",
        "ok 0",
        "ok 0",
        "ok 0",
        "ok 123456789012345",
        "ok -123456789012345",
        "ok 1234567890123456",
        "ok 1.2345678901234567e+19",
        "ok 1e+23",
        "ok 9007199254740992",
        "ok 100",
        "ok 1.5e-07",
        "ok 1",
        "ok 0.1",
        "ok 2.5",
        "error leading zero in a number at byte 15",
        "ok [0,0,1,-1,999999999999999]",
        "error duplicate member \"a\" at byte 7",
        "error duplicate member \"é\" at byte 8",
        "error duplicate member \"a\" at byte 12",
        "error unexpected character '}' at byte 17",
        "ok {}",
        "ok []",
        "ok {}",
        "ok []",
        "ok {\"k\":{},\"l\":[],\"m\":[{}]}",
        "ok {\"m01\":1,\"m02\":2,\"m03\":3,\"m04\":4,\"m05\":5,\"m06\":6,\"m07\":7,\"m08\":8,\"m09\":9,\"m10\":10,\"m11\":11,\"m12\":12,\"m13\":13,\"m14\":14,\"m15\":15,\"m16\":16,\"m17\":17,\"m18\":18,\"m19\":19,\"m20\":20}",
        "ok {\"\":5,\"E\":3,\"a\":8,\"a\\u0001\":6,\"a\\\"b\":4,\"ab\":7,\"z\":1,\"é\":2,\"日本\":9,\"😀\":10}",
        "error nesting deeper than 256 at byte 256",
        "error nesting deeper than 256 at byte 1280",
    ]
    static let byteExpected: [String] = [
        "error invalid UTF-8 in a string at byte 1",
        "error invalid UTF-8 in a string at byte 3",
        "error invalid UTF-8 in a string at byte 1",
        "error control character in a string; escape it at byte 2",
        "error invalid UTF-8 in a string at byte 1",
        "error invalid UTF-8 in a string at byte 1",
        "error invalid UTF-8 in a string at byte 2",
        "error invalid UTF-8 in a string at byte 1",
    ]

    static func describe(_ bytes: [UInt8]) -> String {
        do { return "ok " + (try JSONValue.parse(bytes)).compactText } catch { return "error \(error)" }
    }

    @Test func parseResultsAndErrorsAreUnchanged() {
        #expect(Self.parseCorpus.count == Self.parseExpected.count)
        for (input, expected) in zip(Self.parseCorpus, Self.parseExpected) {
            #expect(Self.describe(Array(input.utf8)) == expected, "input: \(input.debugDescription)")
        }
    }

    @Test func invalidUTF8IsReportedWhereItWas() {
        #expect(Self.byteCorpus.count == Self.byteExpected.count)
        for (input, expected) in zip(Self.byteCorpus, Self.byteExpected) {
            #expect(Self.describe(input) == expected, "input: \(input)")
        }
    }

    /// The pretty form of every valid input above: 691 bytes with this FNV-1a hash before the change.
    @Test func prettyBytesAreUnchanged() {
        var bytes: [UInt8] = []
        for input in Self.parseCorpus { if let v = try? JSONValue.parse(input) { bytes += v.canonicalBytes() } }
        #expect(bytes.count == 691)
        #expect(bytes.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 } == 17_276_478_478_191_923_304)
    }

    /// Integers of up to 15 digits skip the text round trip: the same double, sign of zero included.
    @Test func shortIntegersParseToTheDoubleOfTheirText() throws {
        var texts = ["0", "-0", "1", "-1", "999999999999999", "-999999999999999", "100000000000000", "1000000000000000",
                     "9007199254740991", "9007199254740993", "-9007199254740993", "4503599627370497", "123456789012345678"]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {  // a fixed pseudo-random spread of lengths and signs
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let digits = String(String(x >> 1).prefix(Int(x % 17) + 1).drop { $0 == "0" })
            texts.append((x & 1 == 0 ? "" : "-") + (digits.isEmpty ? "0" : digits))
        }
        for text in texts {
            let expected = Double(text)!
            guard case .number(let d) = try JSONValue.parse(text) else { Issue.record("\(text) is not a number"); continue }
            #expect(d == expected && d.sign == expected.sign, "\(text)")
        }
    }

    @Test func writerKeepsEscapesAndKeyOrder() {
        let value: JSONValue = ["b\u{1F}": "\u{7F}\"\\\r\t\u{8}", "a": ["é": 1, "e": [true, nil, 2.5]], "": "日本\u{0}"]
        #expect(value.compactText == #"{"":"日本\u0000","a":{"e":[true,null,2.5],"é":1},"b\u001f":""# + "\u{7F}" + #"\"\\\r\t\u0008"}"#)
    }
}
