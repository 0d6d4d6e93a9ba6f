import Testing
import TableProtocol
@testable import TodoServer

/// Header values an insert's answer carries, now built without interpolation: the text must stay
/// the interpolation's, kept here as the reference.
@Suite struct AnswerHeaderTextTests {
    @Test func tableSettingsHeaderIsTheInterpolatedText() {
        for softDelete in [false, true] {
            for idType in TableIDType.allCases {
                #expect(TableSetup.header(softDelete: softDelete, idType: idType)
                    == "softDelete=\(softDelete); idType=\(idType.rawValue)")
            }
        }
        #expect(TableSetup.header(softDelete: true, idType: .string) == "softDelete=true; idType=string")
    }

    @Test func locationIsTheInterpolatedURL() {
        let bases = ["http://127.0.0.1:8080", "https://example.org/base", "", "http://h\u{e9}te"]
        let tables = ["todoitem", "T_1", "x"]
        let ids = ["00000000-0000-4000-8000-000000000001", "a b/c?d#e%", "caf\u{e9} \u{1F600}", "", "42",
                   String(repeating: "long-id-", count: 40)]
        for base in bases {
            for table in tables {
                for id in ids {
                    let url = TableService.location(base, table, id)
                    #expect(url == "\(base)/tables/\(table)/\(PercentEncoding.encode(id))")
                    #expect(Array(url.utf8) == Array("\(base)/tables/\(table)/\(PercentEncoding.encode(id))".utf8))
                }
            }
        }
    }
}

@Suite struct TextAssemblyTests {
    @Test func joinIsConcatenation() {
        let pieces = ["", "http://", "127.0.0.1:8080", "/tables/", "caf\u{e9}", "\u{1F600}", String(repeating: "x", count: 300), "/"]
        for a in pieces {
            for b in pieces {
                #expect(TextAssembly.join(a, b) == a + b)
                #expect(Array(TextAssembly.join(a, b, a).utf8) == Array((a + b + a).utf8))
            }
        }
        #expect(TextAssembly.join() == "")
    }
}
