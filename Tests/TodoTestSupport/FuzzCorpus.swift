import TodoBasics

/// The shipped fuzz corpus (`Fixtures/Fuzz/<target>/`, grown by `Fuzz/run.sh --merge`) and a seeded
/// mutator over it, so every `swift test` replays what libFuzzer found and tries a few thousand
/// neighbours of it, without libFuzzer.
public enum FuzzCorpus {
    /// Every input of one target, sorted by file name: seeds (`seed-*`), crash reproducers
    /// (`crash-*`, each a bug that was fixed) and the minimised corpus (SHA-1 names).
    public static func inputs(_ target: String) -> [(name: String, bytes: [UInt8])] {
        let fs = LocalFileSystem()
        let folder = Fixtures.root.appendingPath("Fuzz").appendingPath(target)
        let names = ((try? fs.listDirectory(folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        precondition(!names.isEmpty, "no fuzz corpus at \(folder)")
        return names.map { name in
            guard let bytes = try? fs.readFile(folder.appendingPath(name)) else {
                preconditionFailure("cannot read \(folder.appendingPath(name))")
            }
            return (name, bytes)
        }
    }

    /// `count` mutants of the corpus, repeatable from `seed`: each takes a random input and applies
    /// one to four of libFuzzer's basic moves (change, insert, erase, duplicate, splice with another
    /// input, insert a dictionary token).
    public static func mutants(
        of corpus: [[UInt8]], count: Int, seed: UInt64, dictionary: [String] = []
    ) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        let tokens = dictionary.map { Array($0.utf8) }
        return (0..<count).map { _ in
            var input = corpus[Int.random(in: 0..<corpus.count, using: &random)]
            for _ in 0...Int.random(in: 0...3, using: &random) {
                mutate(&input, corpus, tokens, &random)
            }
            return input
        }
    }

    private static func mutate(
        _ input: inout [UInt8], _ corpus: [[UInt8]], _ tokens: [[UInt8]], _ random: inout SplitMix64
    ) {
        let at = Int.random(in: 0...input.count, using: &random)
        let end = min(input.count, at + Int.random(in: 1...16, using: &random))
        switch Int.random(in: 0..<6, using: &random) {
        case 0 where at < input.count:
            input[at] = Bool.random(using: &random)
                ? input[at] ^ (1 << UInt8.random(in: 0...7, using: &random))
                : UInt8.random(in: 0...255, using: &random)
        case 1:
            input.insert(UInt8.random(in: 0...255, using: &random), at: at)
        case 2:
            input.removeSubrange(at..<end)
        case 3:
            input.insert(contentsOf: input[at..<end], at: Int.random(in: 0...input.count, using: &random))
        case 4:
            let other = corpus[Int.random(in: 0..<corpus.count, using: &random)]
            let from = Int.random(in: 0...other.count, using: &random)
            input.replaceSubrange(at..<end, with: other[from...].prefix(Int.random(in: 0...64, using: &random)))
        default:
            if let token = tokens.randomElement(using: &random) { input.insert(contentsOf: token, at: at) }
        }
    }
}
