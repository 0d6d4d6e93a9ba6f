import Testing
import TodoModel
@testable import TodoStore

@Suite struct IDEncodingTests {
    static let nasty = ["../x", "a/b", ".", "..", "\u{0}", "", String(repeating: "é", count: 300), "ABC", "abc", "Ünïcødé",
                        "with space", "a%2Fb", "~tilde", "a.b.c", "日本語", "-", "_", "x\u{0}y", "CON", "a\\b"]

    @Test(arguments: nasty)
    func namesNeverLeaveTheirFolder(id: String) {
        let name = IDEncoding.fileName(for: id)
        #expect(!name.isEmpty)
        #expect(!name.contains("/") && !name.contains(".") && !name.utf8.contains(0))
        #expect(name.utf8.count <= IDEncoding.maximumLength)
        #expect(name.unicodeScalars.allSatisfy { $0.isASCII })
    }

    @Test func idsDifferingOnlyInCaseShareAName() {
        #expect(IDEncoding.fileName(for: "AbC") == IDEncoding.fileName(for: "abc"))
        #expect(IDEncoding.fileName(for: "ÜNÏ") == IDEncoding.fileName(for: "ünï"))
    }

    @Test func distinctIDsGetDistinctNames() {
        let keys = Set(Self.nasty.map { ItemID.key($0) })
        let names = Set(Self.nasty.map { IDEncoding.fileName(for: $0) })
        #expect(names.count == keys.count)
        // Long ids that share a long prefix still differ, through the digest.
        let a = String(repeating: "a", count: 200) + "1", b = String(repeating: "a", count: 200) + "2"
        #expect(IDEncoding.fileName(for: a) != IDEncoding.fileName(for: b))
    }

    @Test func shortNamesDecodeToTheLowerCaseID() {
        for id in ["D265929E-B17B-42D1-8FAB-D0ADF26486FA", "a b", "日本語", "a.b", "x_y-z"] {
            #expect(IDEncoding.decode(IDEncoding.fileName(for: id)) == id.lowercased())
        }
        #expect(IDEncoding.decode(IDEncoding.fileName(for: String(repeating: "x", count: 200))) == nil)
    }

    @Test func uuidsStayReadable() {
        #expect(IDEncoding.fileName(for: "5d09cd5a-f305-4b59-afaf-5bb90148c216") == "5d09cd5a-f305-4b59-afaf-5bb90148c216")
    }

    @Test func operationFileNamesRoundTrip() {
        let name = OperationFileName(sequence: 42, kind: .update, table: "todoitem", encodedID: IDEncoding.fileName(for: "a/b"))
        #expect(name.name == "0000000042.update.todoitem.a%2Fb.json")
        #expect(OperationFileName(parsing: name.name) == name)
        #expect(OperationFileName(parsing: "0000000042.upsert.todoitem.x.json") == nil)
        #expect(OperationFileName(parsing: "x.update.todoitem.x.json") == nil)
    }
}
