/// The messages of `FilterParser`, kept out of the grammar functions so that their string
/// building does not enlarge the frames of functions that recurse.
extension FilterParser {
    /// An error for the current token: it cannot come here.
    @inline(never)
    func unexpectedHere(_ what: String) -> ODataQueryError {
        var reason = "unexpected \(describe(current)) \(what)"
        if let name = currentIdentifier {
            let lower = name.lowercased()
            if name != lower, Self.keywords.contains(lower) || lower == "asc" || lower == "desc" {
                reason += "; keywords are lower case ('\(lower)')"
            }
        }
        return error(at: current, reason)
    }

    /// "expected an expression after 'eq'", at the current token.
    @inline(never)
    func missingExpression(found: String?) -> ODataQueryError {
        var reason = "expected an expression"
        if let previous { reason += " after \(describe(previous))" }
        if let found { reason += ", found \(found)" }
        if previous == nil && found == nil { reason = "the expression is empty" }
        return error(at: current, reason)
    }

    @inline(never)
    func emptyParentheses(_ open: FilterToken) -> ODataQueryError {
        error(at: open, "empty parentheses")
    }

    @inline(never)
    func unclosedParenthesis(openedAt open: FilterToken) -> ODataQueryError {
        unexpectedHere("where ')' should close the '(' at position \(open.position)")
    }

    @inline(never)
    func unclosedArguments(of function: FilterFunction) -> ODataQueryError {
        unexpectedHere("in the arguments of '\(function.rawValue)'; expected ',' or ')'")
    }

    /// The function a name followed by `(` calls; names are lower case only (§8.2, §8.3).
    @inline(never)
    func resolveFunction(_ token: FilterToken) throws(ODataQueryError) -> FilterFunction {
        guard case .identifier(let name) = token.kind else { throw error(at: token, "expected a function name") }
        if let function = FilterFunction(rawValue: name) { return function }
        var reason = "unknown function '\(name)'"
        if FilterFunction(rawValue: name.lowercased()) != nil {
            reason += "; function names are lower case ('\(name.lowercased())')"
        }
        throw error(at: token, reason)
    }

    @inline(never)
    func checkArity(_ function: FilterFunction, count: Int, at token: FilterToken) throws(ODataQueryError) {
        guard !function.arity.contains(count) else { return }
        let given = count == 1 ? "1 was given" : "\(count) were given"
        throw error(at: token, "'\(function.rawValue)' takes \(function.arityDescription), but \(given)")
    }

    @inline(never)
    func tooComplex(at token: FilterToken) -> ODataQueryError {
        error(at: token, "the expression is too complex (more than \(Self.maximumHeight) levels)")
    }

    @inline(never)
    func tooDeep(at token: FilterToken) -> ODataQueryError {
        error(at: token, "nesting deeper than \(Self.maximumNesting) levels")
    }

    func describe(_ token: FilterToken) -> String {
        switch token.kind {
        case .end: return "end of input"
        case .string, .date: return lexer.text(of: token)
        default: return "'\(lexer.text(of: token))'"
        }
    }

    func error(at token: FilterToken, _ reason: String) -> ODataQueryError {
        ODataQueryError(option: lexer.option, position: token.position, reason: reason)
    }
}
