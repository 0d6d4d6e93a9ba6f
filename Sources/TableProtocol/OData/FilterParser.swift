/// Recursive-descent parser for the `$filter` grammar of protocol §8.2.
///
/// Depth is bounded twice, before recursing, so no input can exhaust the stack:
/// - nesting (parentheses, function calls, `not`, unary `-`) deeper than `maximumNesting` (100,
///   §8.2) is an error;
/// - a tree higher than `maximumHeight` (long `add`/`eq` chains inside nesting) is an error, because
///   evaluating and releasing the tree recurse once per level. `and`/`or` lists add one level only.
///
/// The grammar functions that recurse are kept small, and everything else (lexing, leaves,
/// messages) lives in functions that return before the recursion goes deeper. Measured on Linux
/// x86_64: the deepest filters need about 0.15 MB of stack in release builds and under 0.8 MB in
/// debug builds (parsing, evaluating or printing them); `StackBudgetTests` runs them on 2 MiB.
struct FilterParser {
    static let maximumNesting = 100
    static let maximumHeight = 500

    private(set) var lexer: FilterLexer
    private(set) var current: FilterToken
    /// The token before `current`, for "expected an expression after 'eq'".
    private(set) var previous: FilterToken?
    private var nesting = 0

    /// A parsed subtree and its height (a leaf is 1).
    struct Parsed {
        var expression: FilterExpression
        var height: Int
    }

    static let keywords: Set<String> = [
        "and", "or", "not", "eq", "ne", "gt", "ge", "lt", "le", "add", "sub", "mul", "div", "mod",
        "true", "false", "null",
    ]

    /// Starts on `text`; `option` (`$filter`, `$orderby`) names the parameter in messages.
    init(text: String, option: String) throws(ODataQueryError) {
        lexer = FilterLexer(text: text, option: option)
        current = try lexer.next()
    }

    /// A whole `$filter` text: one expression and nothing after it.
    static func parseFilter(_ text: String) throws(ODataQueryError) -> FilterExpression {
        var parser = try FilterParser(text: text, option: "$filter")
        let parsed = try parser.parseExpression()
        try parser.expectEnd()
        return parsed.expression
    }

    // MARK: - State used by the $orderby parser

    var currentIdentifier: String? {
        if case .identifier(let name) = current.kind { return name }
        return nil
    }

    var atEnd: Bool { current.kind == .end }
    var atComma: Bool { current.kind == .comma }

    /// Not inlined: the lexer's frame must not sit in the frames of the recursive grammar functions.
    @inline(never)
    mutating func advance() throws(ODataQueryError) {
        previous = current
        current = try lexer.next()
    }

    mutating func expectEnd() throws(ODataQueryError) {
        guard atEnd else { throw unexpectedHere("after the end of the expression") }
    }

    // MARK: - Grammar

    /// expr = or_expr. The five binary rules of §8.2 are one function, `parseBinary`.
    mutating func parseExpression() throws(ODataQueryError) -> Parsed {
        try parseBinary(atLeast: .or)
    }

    /// The binary rules, lowest precedence first.
    enum BinaryLevel: Int, Comparable {
        case or, and, comparison, additive, multiplicative

        static func < (lhs: BinaryLevel, rhs: BinaryLevel) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A binary operator at the current token.
    struct Operator {
        var name: String
        var level: BinaryLevel
        var token: FilterToken
    }

    private var currentOperator: Operator? {
        guard let name = currentIdentifier else { return nil }
        let level: BinaryLevel
        switch name {
        case "or": level = .or
        case "and": level = .and
        case "eq", "ne", "gt", "ge", "lt", "le": level = .comparison
        case "add", "sub": level = .additive
        case "mul", "div", "mod": level = .multiplicative
        default: return nil
        }
        return Operator(name: name, level: level, token: current)
    }

    /// An expression whose operators all bind at `level` or tighter. Precedence climbing: each
    /// right operand is read one level tighter, which gives exactly the rules
    ///
    ///     or_expr  = and_expr { "or" and_expr }
    ///     and_expr = cmp_expr { "and" cmp_expr }
    ///     cmp_expr = add_expr { ("eq" | "ne" | "gt" | "ge" | "lt" | "le") add_expr }
    ///     add_expr = mul_expr { ("add" | "sub") mul_expr }
    ///     mul_expr = unary    { ("mul" | "div" | "mod") unary }
    ///
    /// all left-associative, with fewer stack frames per parenthesis than one function per rule.
    private mutating func parseBinary(atLeast level: BinaryLevel) throws(ODataQueryError) -> Parsed {
        var lhs = try parseUnary()
        while let op = currentOperator, op.level >= level {
            lhs = op.level <= .and ? try parseLogicalList(lhs, op) : try parseOperation(lhs, op)
        }
        return lhs
    }

    /// `first or b or c …` (or `and`), as one list node.
    @inline(never)
    private mutating func parseLogicalList(_ first: Parsed, _ op: Operator) throws(ODataQueryError) -> Parsed {
        var operands = [first.expression]
        var height = first.height
        while currentIdentifier == op.name {
            try advance()
            let operand = try parseRightOperand(of: op.level)
            operands.append(operand.expression)
            height = max(height, operand.height)
        }
        let node: FilterExpression.Node = op.level == .or ? .or(operands) : .and(operands)
        return Parsed(expression: FilterExpression(node, position: op.token.position), height: height + 1)
    }

    /// `lhs op rhs` for a comparison or arithmetic operator.
    @inline(never)
    private mutating func parseOperation(_ lhs: Parsed, _ op: Operator) throws(ODataQueryError) -> Parsed {
        try advance()
        let rhs = try parseRightOperand(of: op.level)
        let height = max(lhs.height, rhs.height) + 1
        guard height <= Self.maximumHeight, let binary = FilterBinaryOperator(rawValue: op.name) else {
            throw tooComplex(at: op.token)
        }
        let node = FilterExpression.Node.binary(binary, lhs.expression, rhs.expression)
        return Parsed(expression: FilterExpression(node, position: op.token.position), height: height)
    }

    /// The right operand of an operator at `level`: an expression one level tighter.
    private mutating func parseRightOperand(of level: BinaryLevel) throws(ODataQueryError) -> Parsed {
        guard let tighter = BinaryLevel(rawValue: level.rawValue + 1) else { return try parseUnary() }
        return try parseBinary(atLeast: tighter)
    }

    /// unary = "-" unary | "not" unary | primary
    private mutating func parseUnary() throws(ODataQueryError) -> Parsed {
        guard current.kind == .minus || currentIdentifier == "not" else { return try parsePrimary() }
        let opToken = current
        try enterNesting(at: opToken)
        defer { nesting -= 1 }
        try advance()
        let operand = try parseUnary()
        return Self.unary(minus: opToken.kind == .minus, operand, at: opToken.position)
    }

    /// primary = literal | call | member | "(" expr ")"
    private mutating func parsePrimary() throws(ODataQueryError) -> Parsed {
        switch current.kind {
        case .openParen:
            return try parseParenthesised()
        case .identifier(let name) where !Self.keywords.contains(name) && lexer.isFollowedByOpenParen(current):
            return try parseCall()
        default:
            return try parseLeaf()
        }
    }

    /// "(" expr ")"
    private mutating func parseParenthesised() throws(ODataQueryError) -> Parsed {
        let open = current
        try enterNesting(at: open)
        defer { nesting -= 1 }
        try advance()
        if current.kind == .closeParen { throw emptyParentheses(open) }
        let inner = try parseExpression()
        guard current.kind == .closeParen else { throw unclosedParenthesis(openedAt: open) }
        try advance()
        return inner
    }

    /// call = function_name "(" [ expr { "," expr } ] ")"
    private mutating func parseCall() throws(ODataQueryError) -> Parsed {
        let nameToken = current
        let function = try resolveFunction(nameToken)
        try advance()
        try enterNesting(at: current)
        defer { nesting -= 1 }
        try advance()
        var arguments: [FilterExpression] = []
        var height = 1
        if current.kind != .closeParen {
            while true {
                let argument = try parseExpression()
                arguments.append(argument.expression)
                height = max(height, argument.height + 1)
                guard current.kind == .comma else { break }
                try advance()
            }
            guard current.kind == .closeParen else { throw unclosedArguments(of: function) }
        }
        try checkArity(function, count: arguments.count, at: nameToken)
        try advance()
        return Parsed(expression: FilterExpression(.call(function, arguments), position: nameToken.position), height: height)
    }

    /// A literal or a member; any other token cannot start an expression. Never recurses.
    @inline(never)
    private mutating func parseLeaf() throws(ODataQueryError) -> Parsed {
        let token = current
        let node: FilterExpression.Node
        switch token.kind {
        case .number(let value): node = .literal(.number(value))
        case .string(let value): node = .literal(.string(value))
        case .date(let value): node = .literal(.date(value))
        case .identifier("true"): node = .literal(.bool(true))
        case .identifier("false"): node = .literal(.bool(false))
        case .identifier("null"): node = .literal(.null)
        case .identifier(let name):
            if Self.keywords.contains(name) { throw missingExpression(found: "keyword '\(name)'") }
            node = .member(ODataMember(name: name))
        case .end: throw missingExpression(found: nil)
        case .openParen, .closeParen, .comma, .minus: throw missingExpression(found: describe(token))
        }
        try advance()
        return Parsed(expression: FilterExpression(node, position: token.position), height: 1)
    }

    /// `-x` or `not x`; a minus before a number literal becomes part of the number (§8.3).
    private static func unary(minus: Bool, _ operand: Parsed, at position: Int) -> Parsed {
        if minus, case .literal(.number(let value)) = operand.expression.node {
            return Parsed(expression: FilterExpression(.literal(.number(-value)), position: position), height: operand.height)
        }
        let node: FilterExpression.Node = minus ? .negate(operand.expression) : .not(operand.expression)
        return Parsed(expression: FilterExpression(node, position: position), height: operand.height + 1)
    }

    @inline(never)
    private mutating func enterNesting(at token: FilterToken) throws(ODataQueryError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else { throw tooDeep(at: token) }
    }
}
