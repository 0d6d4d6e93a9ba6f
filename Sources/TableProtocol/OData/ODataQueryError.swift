/// A query option that cannot be used: the server answers 400 with `message` (protocol §8.1, §9).
///
/// Why one type for every option: the server turns any of them into the same 400 body, and the
/// message names the option, the position when there is one, and the problem, e.g.
/// `Invalid $filter at position 7: expected an expression after 'eq'.`
public struct ODataQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The query option, as people know it: `$filter`, `$orderby`, `$select`, `$top`, `$skip`,
    /// `$inlinecount`.
    public var option: String
    /// Offset of the problem in the option's value, counted in Unicode scalars from 0; nil when the
    /// value is wrong as a whole (`$top=abc`).
    public var position: Int?
    /// What is wrong, without the leading option name and without a final period.
    public var reason: String

    public init(option: String, position: Int?, reason: String) {
        self.option = option
        self.position = position
        self.reason = reason
    }

    /// The sentence for the error body.
    public var message: String {
        if let position {
            return "Invalid \(option) at position \(position): \(reason)."
        }
        return "Invalid \(option): \(reason)."
    }

    public var description: String { message }
}
