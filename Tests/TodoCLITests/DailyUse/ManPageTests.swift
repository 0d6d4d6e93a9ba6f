import Testing
import TodoBasics
import TodoTestSupport
@testable import TodoCLI

/// Issue 19 item 7: `todo man` is a manual page made from the command table, which `man`
/// renders with every command in it; and every relative link of the README resolves in a plain
/// clone (it once pointed at a spec folder outside the repository).
@Suite(.serialized) struct ManPageTests {
    static var build: String { Fixtures.root.parentPath.appendingPath(".build/debug") }
    static var repository: String { Fixtures.root.parentPath }

    @Test func theManPageHasEveryCommandAndOption() {
        let page = ThingsPeopleLookForTests.sh("'\(Self.build)/todo' man")
        #expect(page.code == 0)
        #expect(page.out.hasPrefix(".TH TODO 1 \"\" \"todo \(TodoVersion.current)\" \"User Commands\"\n"))
        for command in CommandTable.all {
            #expect(page.out.contains("\n.SS \"todo \(ManPage.escape(command.name))"), "\(command.name)")
            for option in command.options {
                #expect(page.out.contains("\n\\fB\(ManPage.escape(option.name))\\fR"), "\(command.name) \(option.name)")
            }
        }
    }

    /// `man` itself renders it: the commands come out as text, and roff finds nothing to warn of.
    @Test func manRendersIt() {
        let r = ThingsPeopleLookForTests.sh("'\(Self.build)/todo' man > todo.1 && MANWIDTH=100 man -l todo.1 | col -b")
        #expect(r.code == 0, "\(r)")
        let warnings = ThingsPeopleLookForTests.sh("'\(Self.build)/todo' man > todo.1 && MANWIDTH=100 man --warnings -l todo.1 2>&1 >/dev/null")
        #expect(warnings == (0, ""), "roff warns: \(warnings)")
        // roff justifies lines, alternating the side it pads from line to line (and `col -b`
        // turns spaces into tabs), so words are compared with one space between them.
        let words = r.out.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        #expect(words.contains("todo undo [--json]"), "\(words.prefix(2000))")
        #expect(words.contains("todo pull [--table NAME]"))
        #expect(words.contains("--all-tables"))
    }

    @Test func everyRelativeLinkInTheReadmeResolves() throws {
        let fs = LocalFileSystem()
        for doc in ["README.md", "docs/testing.md", "docs/server-tables.md"] {
            let path = Self.repository.appendingPath(doc)
            let text = String(decoding: try #require(try fs.readFile(path)), as: UTF8.self)
            #expect(!text.contains("../shared/"), "\(doc) points outside the repository")
            for link in Self.links(in: text) where !link.contains("://") && !link.hasPrefix("#") && !link.hasPrefix("mailto:") {
                let target = String(link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
                #expect(fs.fileExists(path.parentPath.appendingPath(target)), "\(doc): the link \(link) leads nowhere")
            }
        }
        #expect(Self.links(in: "see [a](docs/a.md) and [b](#b)") == ["docs/a.md", "#b"])
    }

    /// The targets of Markdown links `[text](target)`.
    static func links(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let start = rest.firstRange(of: "](") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: ")") else { break }
            found.append(String(rest[..<end]))
            rest = rest[end...]
        }
        return found
    }
}
