import Testing
@testable import TableProtocol

@Suite("$select, $top, $skip, $inlinecount (§8.1, §8.10, §8.11)")
struct QueryOptionsTests {
    @Test("$select: *, or names with spaces; system names in either spelling and any case")
    func select() throws {
        #expect(try SelectList.parse("*") == .all)
        #expect(try SelectList.parse(" * ") == .all)
        #expect(try SelectList.parse("id,text") == .members([.id, .column("text")]))
        #expect(try SelectList.parse(" text , __CreatedAt,updatedAt ,Version, text")
            == .members([.column("text"), .system(.createdAt), .system(.updatedAt), .system(.version)]))
        #expect(try SelectList.parse("Text").referencedColumns == ["Text"])
        #expect(try SelectList.parse("id,__deleted,nosuchcolumn").referencedColumns == ["nosuchcolumn"])
        #expect(SelectList.all.referencedColumns.isEmpty)
    }

    @Test("$select errors", arguments: [
        ("", 0, "the list of names is empty"),
        ("text,", 5, "expected a name, found end of input"),
        (",text", 0, "expected a name, found ','"),
        ("text,,id", 5, "expected a name, found ','"),
        ("text id", 5, "unexpected 'i' after 'text'; expected ','"),
        ("*,text", 1, "unexpected ',' after '*'"),
        ("te-xt", 2, "unexpected '-' after 'te'; expected ','"),
        ("1text", 0, "expected a name, found '1'"),
        ("a/b", 1, "unexpected '/' after 'a'; expected ','"),
        ("tëxt", 1, "unexpected 'ë' after 't'; expected ','"),
    ])
    func selectErrors(text: String, position: Int, reason: String) {
        let error = #expect(throws: ODataQueryError.self) { try SelectList.parse(text) }
        #expect(error?.position == position, "\(String(describing: error))")
        #expect(error?.message == "Invalid $select at position \(position): \(reason).", "\(String(describing: error))")
    }

    @Test("$top: digits only, 0 to 1000")
    func top() throws {
        #expect(try ODataQueryOptions.parseTop("0") == 0)
        #expect(try ODataQueryOptions.parseTop("50") == 50)
        #expect(try ODataQueryOptions.parseTop("1000") == 1000)
        #expect(try ODataQueryOptions.parseTop("0007") == 7)
        let cases: [(String, String)] = [
            ("1001", "'1001' is more than 1000"),
            ("99999999999999999999999", "is more than 1000"),
            ("-1", "'-1' is negative"),
            ("abc", "'abc' is not a whole number"),
            ("", "the value is empty"),
            (" 5", "not a whole number"),
            ("+5", "not a whole number"),
            ("5.0", "not a whole number"),
            ("٥", "not a whole number"),
        ]
        for (text, fragment) in cases {
            do {
                let value = try ODataQueryOptions.parseTop(text)
                Issue.record("$top=\(text) gave \(value)")
            } catch {
                #expect(error.message.hasPrefix("Invalid $top: "), "\(error.message)")
                #expect(error.reason.contains(fragment), "\(error.message)")
                #expect(error.position == nil)
            }
        }
    }

    @Test("$skip: digits only, 0 or more; huge values cap at Int.max")
    func skip() throws {
        #expect(try ODataQueryOptions.parseSkip("0") == 0)
        #expect(try ODataQueryOptions.parseSkip("123456") == 123_456)
        #expect(try ODataQueryOptions.parseSkip("99999999999999999999999999") == Int.max)
        for text in ["-1", "x", "", "1e3", "0x10"] {
            #expect(throws: ODataQueryError.self, "\(text)") { try ODataQueryOptions.parseSkip(text) }
        }
        do {
            _ = try ODataQueryOptions.parseSkip("-1")
        } catch {
            #expect(error.message == "Invalid $skip: '-1' is negative; expected a whole number of 0 or more.")
        }
    }

    @Test("$inlinecount: allpages or none")
    func inlineCount() throws {
        #expect(try ODataQueryOptions.parseInlineCount("allpages") == .allPages)
        #expect(try ODataQueryOptions.parseInlineCount("none") == InlineCount.none)
        for text in ["some", "", "AllPages", " allpages"] {
            #expect(throws: ODataQueryError.self, "\(text)") { try ODataQueryOptions.parseInlineCount(text) }
        }
        do {
            _ = try ODataQueryOptions.parseInlineCount("some")
        } catch {
            #expect(error.message == "Invalid $inlinecount: 'some' is not 'allpages' or 'none'.")
        }
    }

    @Test("all options at once, and the columns they name (item 112)")
    func together() throws {
        let options = try ODataQueryOptions(
            filter: "nosuchcolumn eq 1", orderBy: "text desc", select: "id,note", top: "3", skip: "2",
            inlineCount: "allpages")
        #expect(options.top == 3)
        #expect(options.skip == 2)
        #expect(options.inlineCount == .allPages)
        #expect(options.referencedColumns == ["nosuchcolumn", "text", "note"])
        #expect(try ODataQueryOptions().filter == nil)
        #expect(throws: ODataQueryError(option: "$top", position: nil, reason: "'x' is not a whole number (digits only)")) {
            try ODataQueryOptions(filter: "text eq 'x'", top: "x")
        }
        #expect(try ODataQueryOptions(orderBy: "nosuchcolumn").referencedColumns == ["nosuchcolumn"])
    }
}
