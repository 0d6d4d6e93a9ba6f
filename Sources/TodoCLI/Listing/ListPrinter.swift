import TodoModel

/// A row of `list` as a line: columns padded to the widest cell, the markers after them, cut to
/// the terminal's width (the text cell first, with an ellipsis) and coloured when asked: the
/// unique part of the short id bold (as git and jj show it), done items dimmed, pending changes
/// yellow, hand edits red.
struct ListPrinter {
    let columns: [ListColumn]
    let widths: [Int]
    let color: Bool
    /// Columns of the terminal; nil: nothing is cut.
    let width: Int?

    static let ellipsis: Character = "…"

    /// The printer of a query's text form: cut to the terminal's width on a terminal only.
    init(_ query: ListQuery, widths: [Int], terminal: Terminal) {
        columns = query.columns
        self.widths = widths
        color = query.color
        width = terminal.isTerminal ? terminal.width : nil
    }

    /// The cell of a column that does not depend on other items (id and done are drawn here).
    static func cell(_ column: ListColumn, of item: Item) -> String {
        switch column {
        case .id, .done: return ""
        case .text: return item.text ?? ""
        case .field(let name): return ItemValue.text(name, in: item) ?? ""
        }
    }

    private enum Style: String {
        case plain = "", unique = "1;35", restOfID = "35", dim = "2", pending = "33", edited = "31"
    }

    func line(_ row: ListRow) -> String {
        var cells: [String] = []
        for (i, column) in columns.enumerated() {
            switch column {
            case .id: cells.append(row.shortID)
            case .done: cells.append(row.done ? "[x]" : "[ ]")
            default: cells.append(row.cells[i])
            }
        }
        var markers: [(String, Style)] = []
        if !row.pending.isEmpty { markers.append(("(pending \(row.pending))", .pending)) }
        if row.edited { markers.append(("(edited by hand)", .edited)) }
        var widths = self.widths
        cut(&cells, &widths, markers: markers.map(\.0))
        // Columns up to the last one with something in it (all of them before markers), the last
        // not padded: no trailing blanks, and markers right after the text as they always were.
        let last = markers.isEmpty ? (cells.lastIndex { !$0.isEmpty } ?? 0) : cells.count - 1
        var out = ""
        for i in 0...last {
            let column = columns[i]
            if i > 0 { out += columns[i - 1] == .done ? " " : "  " }
            let cell = cells[i]
            if column == .id && color {
                let scalars = Array(cell.unicodeScalars)
                let unique = min(row.unique, scalars.count)
                out += paint(String(String.UnicodeScalarView(scalars[..<unique])), .unique)
                out += paint(String(String.UnicodeScalarView(scalars[unique...])), .restOfID)
            } else {
                out += paint(cell, row.done ? .dim : .plain)
            }
            if i < last { out += String(repeating: " ", count: max(0, widths[i] - cell.count)) }
        }
        for (text, style) in markers { out += "  " + paint(text, style) }
        return out
    }

    /// Shortens the text cell (else the last column) so the line fits the terminal, with an
    /// ellipsis where it was cut. Its room is the width less the other columns at their widest,
    /// so columns stay aligned; when it is the last column, less this row's markers too.
    private func cut(_ cells: inout [String], _ widths: inout [Int], markers: [String]) {
        guard let width else { return }
        let target = columns.firstIndex(of: .text) ?? cells.count - 1
        var room = width
        for i in cells.indices {
            if i > 0 { room -= columns[i - 1] == .done ? 1 : 2 }
            if i != target { room -= max(widths[i], cells[i].count) }
        }
        if target == cells.count - 1 { room -= markers.reduce(0) { $0 + 2 + $1.count } }
        room = max(1, room)
        if cells[target].count > room { cells[target] = String(cells[target].prefix(room - 1)) + String(Self.ellipsis) }
        widths[target] = min(widths[target], room)
    }

    private func paint(_ text: String, _ style: Style) -> String {
        guard color, style != .plain, !text.isEmpty else { return text }
        return "\u{1B}[\(style.rawValue)m" + text + "\u{1B}[0m"
    }
}
