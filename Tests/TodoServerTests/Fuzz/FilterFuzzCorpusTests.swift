import Testing
import TableProtocol
import TodoTestSupport

/// The libFuzzer contract of `Fuzz/Sources/FuzzFilter`, replayed on the shipped corpus
/// (`Fixtures/Fuzz/filter`) and on seeded mutants of it: any text gives a filter that evaluates
/// and prints back to itself (or, near the depth limits, to text refused for depth only), or an
/// error positioned inside the text; `$orderby` and `$select`
/// likewise. (Here rather than in TableProtocolTests because the corpus helpers live in
/// TodoTestSupport, which that target does not link.)
@Suite("OData fuzz corpus")
struct FilterFuzzCorpusTests {
    static let dictionary = ["eq", " and ", " or ", "not ", "(", ")", "'", "''", ",", "-", "1e3", "2.5", "42L",
                             "0.5m", "datetimeoffset'", "datetime'", "substringof(", "length(", "concat(",
                             "__updatedAt", "text", "priority", "null", "true", " desc", " asc"]

    @Test("every corpus input keeps the contract")
    func corpus() {
        for (name, bytes) in FuzzCorpus.inputs("filter") {
            check(bytes, name)
        }
    }

    @Test("3000 seeded mutants of the corpus keep the contract")
    func mutants() {
        let corpus = FuzzCorpus.inputs("filter").map(\.bytes)
        for (index, input) in FuzzCorpus.mutants(of: corpus, count: 3000, seed: 0xF1_17E2, dictionary: Self.dictionary)
            .enumerated() {
            check(input, "mutant \(index) (seed 0xF117E2)")
        }
    }

    private func check(_ bytes: [UInt8], _ name: String) {
        let text = String(decoding: bytes, as: UTF8.self)
        let length = text.unicodeScalars.count
        do {
            let expression = try ODataQueryOptions.parseFilter(text)
            _ = expression.evaluate(FilterRowFunction { _ in .string("milk") })
            // Fully parenthesised printing nests deeper than the input: near the limits the printed
            // text may be refused, but only for depth (crash-0fc1ac03…: 55 unary minus print as 110 levels).
            do {
                let again = try ODataQueryOptions.parseFilter(expression.description)
                #expect(again == expression, "\(name): \(expression.description) parses back differently")
            } catch {
                #expect(error.reason.hasPrefix("nesting deeper than") || error.reason.hasPrefix("the expression is too complex"),
                        "\(name): printed filter refused: \(error.message)")
            }
        } catch {
            #expect(error.position.map { $0 >= 0 && $0 <= length } == true, "\(name): \(error.message)")
            #expect(error.message.hasPrefix("Invalid $filter at position "), "\(name): \(error.message)")
        }
        do { _ = try OrderBy.parse(text) } catch {
            #expect(error.position.map { $0 <= length } == true, "\(name): \(error.message)")
        }
        do { _ = try SelectList.parse(text) } catch {
            #expect(error.position.map { $0 <= length } == true, "\(name): \(error.message)")
        }
    }
}
