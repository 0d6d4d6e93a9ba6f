import TodoBasics

extension ItemStampCache {
    /// The entries of a cache in order, one page in memory at a time. A page that is missing,
    /// torn or out of order ends the entries there: the files it would have spared are read.
    struct Reader {
        let store: Store
        let index: Index?
        private var page: [Entry] = []
        private var at = 0
        private var nextPage = 0
        private var last: Entry?
        private var ended = false
        /// Entries passed so far, met or not.
        private(set) var consumed = 0

        init(_ store: Store, index: Index?) {
            self.store = store
            self.index = index
            ended = index == nil
        }

        /// Entries held in memory now.
        var held: Int { page.count }

        /// Every entry was there and has been passed.
        var passedAll: Bool { mutating get { head == nil && !ended && consumed == index?.entries } }

        var head: Entry? {
            mutating get {
                while at == page.count {
                    guard !ended, let index, nextPage < index.pages else {
                        page = []
                        at = 0
                        return nil
                    }
                    let path = store.layout.absolute(ItemStampCache.page(index.token, nextPage))
                    guard let bytes = (try? store.fs.readFile(path)) ?? nil, let entries = ItemStampCache.parsePage(bytes),
                          zip(entries, entries.dropFirst()).allSatisfy({ $0 < $1 }), last.map({ $0 < entries.first ?? .init(path: .max, stamp: .max) }) ?? true else {
                        end()
                        return nil
                    }
                    page = entries
                    at = 0
                    nextPage += 1
                }
                return page[at]
            }
        }

        private mutating func end() {
            ended = true
            page = []
            at = 0
        }

        mutating func next() -> Entry? {
            guard let h = head else { return nil }
            last = h
            at += 1
            consumed += 1
            return h
        }

        /// Whether `wanted` is an entry: the entries before it are passed (the walk asks in order).
        mutating func contains(_ wanted: Entry) -> Bool {
            while let h = head, h < wanted { _ = next() }
            guard head == wanted else { return false }
            _ = next()
            return true
        }
    }

    /// Writes entries, given in order, to pages of `token`; nothing is the cache until `commit`.
    /// Pages are written with fsync (a page the index names is whole after a crash); a failed
    /// write stops the writer and the cache is left as it was.
    struct Writer {
        let store: Store
        let token: String
        let pageEntries: Int
        private var page: [Entry] = []
        private var last: Entry?
        private(set) var pages = 0
        private(set) var entries = 0
        private(set) var failed = false

        init(_ store: Store, token: String) {
            self.store = store
            self.token = token
            pageEntries = max(1, store.stampPageEntries)
        }

        /// Entries held in memory now.
        var held: Int { page.count }

        var index: Index { Index(token: token, pages: pages, entries: entries) }

        /// An entry equal to the last is one entry.
        mutating func add(_ e: Entry) {
            guard !failed, last.map({ $0 < e }) ?? true else { return }
            last = e
            page.append(e)
            entries += 1
            if page.count >= pageEntries { flush() }
        }

        /// Writes the page begun, if any: after it, `index` names every entry added.
        mutating func flush() {
            guard !failed, !page.isEmpty else { return }
            do {
                try store.fs.writeFile(store.layout.absolute(ItemStampCache.page(token, pages)), ItemStampCache.encodePage(page), sync: true)
                pages += 1
            } catch {
                failed = true
            }
            page.removeAll(keepingCapacity: true)
        }

        /// Writes the index in through `start`'s temp file, then removes every page of another
        /// token (an older cache, a writer killed mid-way, one that lost the race to this one:
        /// an index naming a page gone only ends its cache early). The rename is not made
        /// durable: a lost one leaves an older cache, whose entries are still true.
        mutating func commit(_ start: Start) {
            flush()
            let fs = store.fs
            do {
                guard !failed else { throw FileSystemError(operation: "write", path: token, code: 5, reason: "a page was not written") }
                try fs.writeFile(start.temp, ItemStampCache.encodeIndex(index), sync: true)
                try fs.rename(start.temp, to: store.layout.absolute(StoreLayout.itemStampsFile))
            } catch {
                abandon(start)
                return
            }
            removePages { !$0.hasPrefix(token + ".") }
        }

        /// Removes this writer's pages and the start's temp file.
        mutating func abandon(_ start: Start?) {
            if let start { try? store.fs.removeFile(start.temp) }
            removePages { $0.hasPrefix(token + ".") }
        }

        /// Only pages are removed: names `<token>.<k>`.
        func removePages(where matches: (String) -> Bool) {
            let dir = store.layout.absolute(ItemStampCache.pagesDirectory)
            guard let names = (try? store.fs.listDirectory(dir)) ?? nil else { return }
            for name in names where matches(name) {
                let parts = name.split(separator: ".")
                guard parts.count == 2, parts[0].utf8.allSatisfy(ItemStampCache.isTokenByte), Int(parts[1]) != nil else { continue }
                try? store.fs.removeFile(dir + "/" + name)
            }
        }
    }

    /// The entries of `old` and of `new` (pages not committed), each once, committed as the cache:
    /// a scan of one table keeps the entries of the others (digests do not say their table; an
    /// entry of a file gone or changed is never met again, and the next full scan drops it).
    static func unite(_ store: Store, old: Index?, new: inout Writer, _ start: Start) {
        new.flush()
        var a = Reader(store, index: old)
        var b = Reader(store, index: new.index)
        var out = Writer(store, token: start.token + "-u")
        while true {
            let x = a.head, y = b.head
            guard x != nil || y != nil else { break }
            if let x, y.map({ x <= $0 }) ?? true { out.add(x); _ = a.next() } else if let y { out.add(y); _ = b.next() }
            store.peakStampsHeld = max(store.peakStampsHeld, a.held + b.held + out.held)
        }
        out.commit(start)
        let token = new.token
        new.removePages { $0.hasPrefix(token + ".") }
    }
}
