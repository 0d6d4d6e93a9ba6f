import Testing
import TodoModel
@testable import TodoCLI
@testable import TodoBasics

/// The byte keys `list` sorts by (`ListOrder`) give the order comparing values would.
@Suite struct ListOrderTests {
    static func item(_ id: String, _ value: JSONValue?, created: String? = nil) -> Item {
        Item(id: id, fields: value.map { ["v": $0] } ?? [:], system: SystemProperties(createdAt: created))
    }

    static func order(_ items: [Item], _ sort: [SortField], numbers: [String: Int] = [:]) -> [String] {
        items.map { ($0.id, ListOrder.key($0, number: numbers[$0.id], sort: sort)) }
            .sorted { RunSorter.less($0.1, $1.1) }.map(\.0)
    }

    @Test func numbersSortByValueAcrossSignsAndFractions() {
        let values: [Double] = [3, -1.5, 0, 1e9, -1e9, 0.25, -0.25, 2]
        let items = values.enumerated().map { Self.item("i\($0.offset)", .number($0.element)) }
        let ascending = Self.order(items, [SortField(name: "v", descending: false)])
        #expect(ascending.map { Double(items[Int($0.dropFirst())!].fields["v"]!.numberValue!) } == values.sorted())
        let descending = Self.order(items, [SortField(name: "v", descending: true)])
        #expect(descending == ascending.reversed())
    }

    @Test func stringsSortByBytesAPrefixFirstAndNulInside() {
        let texts = ["b", "a", "ab", "a\u{0}b", "a\u{0}", "", "é", "Z"]
        let items = texts.enumerated().map { Self.item("i\($0.offset)", .string($0.element)) }
        let sorted = Self.order(items, [SortField(name: "v", descending: false)]).map { items[Int($0.dropFirst())!].fields["v"]!.stringValue! }
        #expect(sorted == texts.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        let down = Self.order(items, [SortField(name: "v", descending: true)]).map { items[Int($0.dropFirst())!].fields["v"]!.stringValue! }
        #expect(down == sorted.reversed())
    }

    @Test func typesRankFalseTrueNumbersStringsAndMissingLastBothWays() {
        let items = [Self.item("s", .string("x")), Self.item("m", nil), Self.item("t", .bool(true)), Self.item("n", .number(5)),
                     Self.item("f", .bool(false)), Self.item("z", .null)]
        #expect(Self.order(items, [SortField(name: "v", descending: false)]) == ["f", "t", "n", "s", "m", "z"])
        #expect(Self.order(items, [SortField(name: "v", descending: true)]) == ["s", "n", "t", "f", "m", "z"])
    }

    /// The default: the items' numbers (the order they came to this replica), whatever their
    /// createdAt; items without a number after them, by id; `--sort` keys before it all.
    @Test func theDefaultIsTheNumbersThenIdsOfItemsWithoutOne() {
        let items = [Self.item("b", nil, created: "2024-05-01T09:00:01.000Z"), Self.item("local2", nil), Self.item("a", nil, created: "2024-05-01T09:00:02.000Z"),
                     Self.item("c", nil, created: "2024-05-01T09:00:03.000Z"), Self.item("nothing", nil), Self.item("local1", nil)]
        let numbers = ["a": 2, "b": 10, "c": 1, "local2": 3]
        #expect(Self.order(items, [], numbers: numbers) == ["c", "a", "local2", "b", "local1", "nothing"])
        let byCreated = Self.order(items, [SortField(name: "createdAt", descending: false)], numbers: numbers)
        #expect(byCreated == ["b", "a", "c", "local2", "local1", "nothing"])
    }
}
