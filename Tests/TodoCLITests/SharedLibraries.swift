import TodoBasics

/// The shared libraries an ELF executable names in its dynamic section (`DT_NEEDED`, what `ldd`
/// starts from), read from the file itself: no `ldd` or `readelf` needed, and nothing is run.
/// Only 64-bit little-endian files (every Linux the package builds on); anything else is nil.
enum SharedLibraries {
    static func needed(by path: String) -> [String]? {
        guard let bytes = (try? LocalFileSystem().readFile(path)) ?? nil, bytes.count > 64,
              bytes[0..<4] == [0x7F, 0x45, 0x4C, 0x46], bytes[4] == 2, bytes[5] == 1 else { return nil }
        func word(_ at: Int, _ size: Int) -> Int? {
            guard at >= 0, at + size <= bytes.count else { return nil }
            return (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        guard let tableAt = word(0x28, 8), let entrySize = word(0x3A, 2), let count = word(0x3C, 2) else { return nil }
        // Section header fields: type at 4, offset at 24, size at 32, link (the string table) at 40.
        func section(_ i: Int) -> (type: Int, offset: Int, size: Int, link: Int)? {
            let at = tableAt + i * entrySize
            guard let type = word(at + 4, 4), let offset = word(at + 24, 8), let size = word(at + 32, 8),
                  let link = word(at + 40, 4) else { return nil }
            return (type, offset, size, link)
        }
        let dynamicType = 6, neededTag = 1
        for i in 0..<count {
            guard let dynamic = section(i) else { return nil }
            guard dynamic.type == dynamicType else { continue }
            guard let strings = section(dynamic.link) else { return nil }
            var names: [String] = []
            for at in stride(from: dynamic.offset, to: dynamic.offset + dynamic.size, by: 16) {
                guard let tag = word(at, 8), let value = word(at + 8, 8) else { return nil }
                if tag == 0 { break }
                guard tag == neededTag else { continue }
                let start = strings.offset + value
                guard start < bytes.count, let end = bytes[start...].firstIndex(of: 0) else { return nil }
                names.append(String(decoding: bytes[start..<end], as: UTF8.self))
            }
            return names
        }
        return []  // no dynamic section: a static executable
    }
}
