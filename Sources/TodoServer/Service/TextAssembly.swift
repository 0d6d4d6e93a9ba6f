/// Strings of an answer built from a few pieces (an item's URL, the base URL).
///
/// Written once into a string sized up front: `+` and interpolation append piece by piece,
/// about 340 instructions each even into reserved room, a few per insert.
enum TextAssembly {
    static func join(_ pieces: String...) -> String {
        var total = 0
        for piece in pieces { total += piece.utf8.count }
        return String(unsafeUninitializedCapacity: total) { buffer in
            var at = 0
            for piece in pieces {
                var piece = piece  // withUTF8 is mutating; a native string is not copied
                piece.withUTF8 { bytes in
                    guard let base = bytes.baseAddress else { return }
                    (buffer.baseAddress! + at).initialize(from: base, count: bytes.count)
                    at += bytes.count
                }
            }
            return at
        }
    }
}
