/// CRC-32 (IEEE 802.3, the zlib one), to tell a torn or damaged log record from a whole one.
///
/// Table-driven, slicing by 8 bytes: replaying a log checks every byte once, so this is on the
/// start-up path of a large table.
enum StorageCRC32 {
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            tables[0][n] = c
        }
        for n in 0..<256 {
            for k in 1..<8 {
                let previous = tables[k - 1][n]
                tables[k][n] = tables[0][Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        var i = 0
        let n = bytes.count
        Self.tables.withUnsafeBufferPointer { t in
            let t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3], t4 = t[4], t5 = t[5], t6 = t[6], t7 = t[7]
            while i + 8 <= n {
                let a = crc ^ (UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16
                    | UInt32(bytes[i + 3]) << 24)
                crc = t7[Int(a & 0xFF)] ^ t6[Int((a >> 8) & 0xFF)] ^ t5[Int((a >> 16) & 0xFF)] ^ t4[Int(a >> 24)]
                    ^ t3[Int(bytes[i + 4])] ^ t2[Int(bytes[i + 5])] ^ t1[Int(bytes[i + 6])] ^ t0[Int(bytes[i + 7])]
                i += 8
            }
            while i < n {
                crc = t0[Int((crc ^ UInt32(bytes[i])) & 0xFF)] ^ (crc >> 8)
                i += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        if let result = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { checksum($0) }
    }
}
