import FuzzDriver
import TableProtocol
import TodoModel

/// Contract of the OData `$filter` parser: any text gives an expression or an error whose position
/// lies inside the text. A parsed expression evaluates without trapping and prints to text that
/// parses back to the same tree, or, for filters near the depth limits, is refused for depth only
/// (finding `Fixtures/Fuzz/filter/crash-0fc1ac03…`: 55 nested unary minus print as 110 levels).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilter(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = inputBytes(start, count)
    // The server hands the parser percent-decoded query values, repaired into valid UTF-8.
    let text = String(decoding: bytes, as: UTF8.self)
    do {
        let expression = try ODataQueryOptions.parseFilter(text)
        _ = expression.evaluate(SampleRow())
        _ = expression.referencedColumns
        // The printed form is fully parenthesised, so it nests deeper than the input did: a filter
        // near the depth limits may print to text the parser refuses for depth, never for anything else.
        do {
            if try ODataQueryOptions.parseFilter(expression.description) != expression {
                violation("'\(expression.description)' parses back to a different filter", bytes)
            }
        } catch {
            if !isDepthLimit(error) { violation("the printed filter is refused: \(error.message)", bytes) }
        }
    } catch {
        guard let position = error.position, position >= 0, position <= text.unicodeScalars.count else {
            violation("error without a position inside the text: \(error.message)", bytes)
        }
        guard error.message.hasPrefix("Invalid $filter at position ") else {
            violation("unexpected message: \(error.message)", bytes)
        }
    }
    // $orderby and $select share the lexer: the same text must parse or fail with a position.
    for (option, parse) in [("$orderby", { (t: String) throws(ODataQueryError) in _ = try OrderBy.parse(t) }),
                            ("$select", { (t: String) throws(ODataQueryError) in _ = try SelectList.parse(t) })] {
        do { try parse(text) } catch {
            guard let position = error.position, position <= text.unicodeScalars.count else {
                violation("\(option) error without a position inside the text: \(error.message)", bytes)
            }
        }
    }
    return 0
}

/// The two depth limits of the filter parser (nesting, tree height).
private func isDepthLimit(_ error: ODataQueryError) -> Bool {
    error.reason.hasPrefix("nesting deeper than") || error.reason.hasPrefix("the expression is too complex")
}

/// A row with every kind of member, so evaluation reaches the typed comparisons.
private struct SampleRow: FilterRow {
    func value(of member: ODataMember) -> FilterValue {
        switch member {
        case .id: .string("a")
        case .system(.createdAt), .system(.updatedAt): WireInstant(wireText: "2024-05-01T09:00:00.120Z").map { .date($0) } ?? .null
        case .system(.version): .string("AAAAAAAAB9E=")
        case .system(.deleted): .bool(false)
        case .column("text"): .string("milk")
        case .column("complete"): .bool(false)
        case .column("priority"): .number(3)
        case .column: .null
        }
    }
}

@_cdecl("FuzzFilter_main")
public func fuzzFilterMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { fuzzFilter($0, $1) }
}
