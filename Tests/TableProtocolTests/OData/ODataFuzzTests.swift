import Testing
import TodoBasics
@testable import TableProtocol

/// Random texts built from filter tokens and random bytes, with a fixed seed: every one either
/// parses (and then evaluates, prints and re-parses to an equal tree) or gives an error with a
/// position inside the text. A crash fails the whole run.
@Suite("OData fuzz")
struct ODataFuzzTests {
    static let tokens = [
        "text", "complete", "priority", "id", "updatedAt", "__createdAt", "note", "x_1",
        "eq", "ne", "gt", "ge", "lt", "le", "and", "or", "not", "add", "sub", "mul", "div", "mod",
        "EQ", "And", "true", "false", "null", "asc", "desc",
        "(", ")", "(", ")", ",", "-", "/", "*", "'", "''", "'milk'", "'it''s'", "'é✓'", "'",
        "0", "1", "2.5", "1e3", "42L", "0.5m", "1e400", "1.", "12ab", "-7",
        "datetime'2024-05-01'", "datetimeoffset'2024-05-01T09:00:00.1234567Z'", "datetimeoffset'2024-02-30T00:00Z'",
        "guid'x'", "datetime'", "length(", "substringof(", "substring(", "concat(", "round(", "year(", "trim(",
        "replace(", "indexof(", "foo(", "Length(", " ", "\t", "\n", "#", "é", "\u{0}",
    ]

    private static func randomText(_ random: inout SplitMix64) -> String {
        var text = ""
        let count = Int.random(in: 0...14, using: &random)
        for _ in 0..<count {
            if Int.random(in: 0..<8, using: &random) == 0 {
                // A run of random bytes, repaired into valid UTF-8 as a decoded query value would be.
                let bytes = (0..<Int.random(in: 1...4, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                text += String(decoding: bytes, as: UTF8.self)
            } else {
                text += tokens[Int.random(in: 0..<tokens.count, using: &random)]
            }
            if Bool.random(using: &random) { text += " " }
        }
        return text
    }

    @Test("4000 random filters parse or fail cleanly")
    func filters() throws {
        var random = SplitMix64(seed: 0x0DA7A)
        var parsed = 0
        let row = ODataTestTable.rows[0]
        for _ in 0..<4000 {
            let text = Self.randomText(&random)
            do {
                let expression = try ODataQueryOptions.parseFilter(text)
                parsed += 1
                _ = expression.evaluate(row)
                _ = expression.referencedColumns
                _ = PullShape.recognise(filter: expression, orderBy: OrderBy.byID)
                #expect(try ODataQueryOptions.parseFilter(expression.description) == expression, "\(text)")
            } catch {
                let position = try #require(error.position)
                #expect(position >= 0 && position <= text.unicodeScalars.count, "\(text): \(error.message)")
                #expect(error.message.hasPrefix("Invalid $filter at position "))
            }
        }
        // The generator must reach the evaluator, not only the error paths.
        #expect(parsed > 100)
    }

    @Test("4000 random $orderby and $select values parse or fail cleanly")
    func orderByAndSelect() throws {
        var random = SplitMix64(seed: 0x5E1EC7)
        let rows = ODataTestTable.rows
        for _ in 0..<4000 {
            let text = Self.randomText(&random)
            do {
                let order = try OrderBy.parse(text).withIDTieBreak
                _ = rows.sorted { order.areInIncreasingOrder($0, $1) }
            } catch {
                let position = try #require(error.position)
                #expect(position <= text.unicodeScalars.count, "\(text): \(error.message)")
            }
            do {
                _ = try SelectList.parse(text)
            } catch {
                let position = try #require(error.position)
                #expect(position <= text.unicodeScalars.count, "\(text): \(error.message)")
            }
        }
    }

    @Test("random date texts parse or are refused, and parsed ones print back to the same millisecond")
    func dates() throws {
        var random = SplitMix64(seed: 0x4_3_2)
        let pieces = ["2024", "-", "05", "01", "T", "09", ":", "00", ".", "1234567", "12345678", "Z", "+", "02", "24",
                      "60", "13", "29", "02", "0", "x"]
        for _ in 0..<4000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                text += pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }
            if let instant = WireInstant(wireText: text) {
                #expect(try WireInstant.parse(instant.wireText) == instant.truncatedToMilliseconds)
            } else {
                // Random text: which problem it has is not the point (the table tests check each
                // one), only that it is refused as a date error naming the text, never a crash.
                let error = #expect(throws: WireDateError.self) { try WireInstant.parse(text) }
                #expect(error?.text == text)
            }
        }
    }
}
