/// A parsed `$filter` (or `$orderby` key) expression: the tree of protocol §8.2.
///
/// Why `and`/`or` hold lists: a client may send `id eq 'a' or id eq 'b' or …` with hundreds of
/// terms; as a list this stays one level deep, so evaluating and releasing the tree never recurses
/// deeply. Logic over lists is the same as the left-nested binary form (Kleene logic is associative).
public struct FilterExpression: Sendable, CustomStringConvertible {
    public indirect enum Node: Sendable, Equatable {
        case literal(FilterValue)
        case member(ODataMember)
        /// `not x`
        case not(FilterExpression)
        /// `-x` (a minus directly before a number literal is folded into the literal)
        case negate(FilterExpression)
        /// A comparison or arithmetic operator.
        case binary(FilterBinaryOperator, FilterExpression, FilterExpression)
        /// `a and b and …`, two or more operands.
        case and([FilterExpression])
        /// `a or b or …`, two or more operands.
        case or([FilterExpression])
        /// A function call; the arity has been checked.
        case call(FilterFunction, [FilterExpression])
    }

    public var node: Node
    /// Where the node starts in the query text, in Unicode scalars from 0: the operator of an
    /// operator node, otherwise the first token. For messages only.
    public var position: Int

    public init(_ node: Node, position: Int = 0) {
        self.node = node
        self.position = position
    }

    /// Fully parenthesised OData text that parses back to an equal tree, e.g.
    /// `((text eq 'x') or (complete eq true))`, except near the nesting limit: the added
    /// parentheses can take a filter the parser accepted past it (the fuzzer found 55 nested
    /// unary minuses printing 110 levels deep). System members use their G2 names.
    public var description: String {
        switch node {
        case .literal(let value): return ODataLiteral.text(of: value)
        case .member(let member): return member.name
        case .not(let operand): return "(not \(operand))"
        case .negate(let operand): return "(-\(operand))"
        case .binary(let op, let lhs, let rhs): return "(\(lhs) \(op.rawValue) \(rhs))"
        case .and(let operands): return "(" + operands.map(\.description).joined(separator: " and ") + ")"
        case .or(let operands): return "(" + operands.map(\.description).joined(separator: " or ") + ")"
        case .call(let function, let arguments):
            return function.rawValue + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        }
    }

    /// The user columns the expression names (§8.5): the server answers `[]` when one of them is
    /// not a column of the table.
    public var referencedColumns: Set<String> {
        var columns: Set<String> = []
        collectColumns(into: &columns)
        return columns
    }

    func collectColumns(into columns: inout Set<String>) {
        switch node {
        case .literal, .member(.id), .member(.system): return
        case .member(.column(let name)): columns.insert(name)
        case .not(let operand), .negate(let operand): operand.collectColumns(into: &columns)
        case .binary(_, let lhs, let rhs):
            lhs.collectColumns(into: &columns)
            rhs.collectColumns(into: &columns)
        case .and(let operands), .or(let operands), .call(_, let operands):
            for operand in operands { operand.collectColumns(into: &columns) }
        }
    }
}

extension FilterExpression: Equatable {
    /// Structural equality; positions are ignored, so `(a)` and `a` are equal trees.
    public static func == (lhs: FilterExpression, rhs: FilterExpression) -> Bool {
        lhs.node == rhs.node
    }
}

/// The binary operators other than `and`/`or`.
public enum FilterBinaryOperator: String, CaseIterable, Sendable {
    case eq, ne, gt, ge, lt, le
    case add, sub, mul, div, mod

    public var isComparison: Bool {
        switch self {
        case .eq, .ne, .gt, .ge, .lt, .le: return true
        case .add, .sub, .mul, .div, .mod: return false
        }
    }
}

/// The functions of protocol §8.7. Names are lower case only.
public enum FilterFunction: String, CaseIterable, Sendable {
    case substringof, startswith, endswith, indexof, length, tolower, toupper, trim, concat
    case substring, replace
    case year, month, day, hour, minute, second
    case round, floor, ceiling

    /// How many arguments a call takes; a call outside this range is a 400 (§8.7).
    public var arity: ClosedRange<Int> {
        switch self {
        case .substringof, .startswith, .endswith, .indexof: return 2...2
        case .length, .tolower, .toupper, .trim: return 1...1
        case .concat: return 2...Int.max
        case .substring: return 2...3
        case .replace: return 3...3
        case .year, .month, .day, .hour, .minute, .second: return 1...1
        case .round, .floor, .ceiling: return 1...1
        }
    }

    /// "1 argument", "2 or 3 arguments", "2 or more arguments", for messages.
    var arityDescription: String {
        let range = arity
        if range.upperBound == Int.max { return "\(range.lowerBound) or more arguments" }
        if range.lowerBound == range.upperBound {
            return range.lowerBound == 1 ? "1 argument" : "\(range.lowerBound) arguments"
        }
        return "\(range.lowerBound) or \(range.upperBound) arguments"
    }
}
