/// Where `list` and `export` rows go, whichever way they were read (`NumberedListing` or the
/// sorts of `ListPipeline`): text lines, one JSON array written one element at a time, or JSON
/// lines, up to `--limit`.
struct ListOutput {
    let query: ListQuery
    let printer: ListPrinter
    let console: Console
    private(set) var count = 0

    init(query: ListQuery, printer: ListPrinter, console: Console) {
        self.query = query
        self.printer = printer
        self.console = console
    }

    /// Prints a row that went through a sort: `ListRow` bytes for text, else the item's JSON.
    /// False once the limit is reached.
    mutating func emit(_ payload: [UInt8]) -> Bool {
        query.output == .text ? emit(row: ListRow(decoding: payload)) : emit(json: payload)
    }

    mutating func emit(row: ListRow) -> Bool {
        console.out(printer.line(row))
        return counted()
    }

    /// The item's JSON as `--json` (nested one level) or `--json-lines` (compact) writes it.
    mutating func emit(json: [UInt8]) -> Bool {
        console.outRaw(query.output == .json ? Array((count == 0 ? "[\n  " : ",\n  ").utf8) + json : json + [10])
        return counted()
    }

    private mutating func counted() -> Bool {
        count += 1
        return count < (query.limit ?? Int.max)
    }

    /// Closes the JSON array.
    func finish() {
        if query.output == .json { console.outRaw(Array((count == 0 ? "[]\n" : "\n]\n").utf8)) }
    }
}
