import TodoModel

/// What `list` shows: which items, in what order, how many, which columns, and in what form.
/// Built from the command line by `ListCommand.parse`, which says what is wrong with a bad value.
struct ListQuery {
    enum State: Equatable { case pending, done, all }
    enum Output: Equatable { case text, json, jsonLines }

    var state: State = .pending
    var matches: [FieldMatch] = []
    /// Keys before the default order (the items' numbers), which breaks ties.
    var sort: [SortField] = []
    var limit: Int?
    var columns: [ListColumn] = ListColumn.standard
    var output: Output = .text
    var color = false

    static let whereHint = "write FIELD=VALUE (equal), FIELD!=VALUE (not equal) or FIELD~TEXT (contains, ignoring case), e.g. --where text~milk"
    static let sortHint = "give FIELD or -FIELD (descending), several with commas, e.g. --sort -updatedAt,text"
    static let columnsHint = "give column names with commas, e.g. --columns id,done,text,priority (id, done, text, or any field)"

    /// `--color auto` (the default) colours a terminal unless `NO_COLOR` is set (no-color.org)
    /// or `TERM` is dumb; `always` and `never` decide alone.
    static func colorWanted(_ choice: ColorChoice, terminal: Terminal, environment: [String: String]) -> Bool {
        switch choice {
        case .always: return true
        case .never: return false
        case .auto: return terminal.isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        }
    }

    /// `--color WHEN`.
    enum ColorChoice: String, Equatable { case auto, always, never }

    /// Whether an item is shown (before the limit).
    func shows(_ item: Item) -> Bool {
        switch state {
        case .pending: if item.isComplete { return false }
        case .done: if !item.isComplete { return false }
        case .all: break
        }
        return matches.allSatisfy { $0.matches(item) }
    }
}

/// A named value of an item, as `--where`, `--sort` and `--columns` see it: `id`, `createdAt`,
/// `updatedAt`, `version`, `done` (the `complete` field), or a field.
enum ItemValue {
    static func of(_ name: String, in item: Item) -> JSONValue? {
        switch name {
        case "id": return .string(item.id)
        case "createdAt": return item.system.createdAt.map(JSONValue.string)
        case "updatedAt": return item.system.updatedAt.map(JSONValue.string)
        case "version": return item.system.version.map(JSONValue.string)
        case "done": return item.fields["complete"]
        default: return item.fields[name]
        }
    }

    /// As a person reads it: a string as it is, anything else as compact JSON; nil when missing.
    static func text(_ name: String, in item: Item) -> String? {
        guard let value = of(name, in: item), !value.isNull else { return nil }
        return value.stringValue ?? value.compactText
    }
}

/// `--where FIELD=VALUE`, `FIELD!=VALUE`, `FIELD~TEXT`.
struct FieldMatch: Equatable {
    enum Operator: Equatable { case equals, notEquals, contains }
    var field: String
    var op: Operator
    var value: String

    static func parse(_ text: String) throws(CLIError) -> FieldMatch {
        guard let at = text.firstIndex(where: { $0 == "=" || $0 == "~" }) else {
            throw CLIError(.usage, "--where '\(text)' has no operator", hint: ListQuery.whereHint)
        }
        var field = String(text[..<at])
        let value = String(text[text.index(after: at)...])
        var op: Operator = text[at] == "~" ? .contains : .equals
        if op == .equals && field.hasSuffix("!") {
            field.removeLast()
            op = .notEquals
        }
        guard !field.isEmpty else { throw CLIError(.usage, "--where '\(text)' names no field", hint: ListQuery.whereHint) }
        return FieldMatch(field: field, op: op, value: value)
    }

    /// Values compare as people read them (`ItemValue.text`): `complete=true`, `text=Buy milk`.
    /// A missing field equals nothing and contains nothing.
    func matches(_ item: Item) -> Bool {
        let text = ItemValue.text(field, in: item)
        switch op {
        case .equals: return text == value
        case .notEquals: return text != value
        case .contains: return text.map { $0.lowercased().contains(value.lowercased()) } ?? false
        }
    }
}

struct SortField: Equatable {
    var name: String
    var descending: Bool
}

/// A column of the text form. New kinds (an item number) go here and in `ListPrinter.cell`.
enum ListColumn: Equatable {
    case id, done, text, field(String)

    static let standard: [ListColumn] = [.id, .done, .text]

    init(_ name: String) {
        switch name {
        case "id": self = .id
        case "done": self = .done
        case "text": self = .text
        default: self = .field(name)
        }
    }
}
