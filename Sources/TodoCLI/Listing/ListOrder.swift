import TodoModel

/// The order of `list` as byte keys, so that items can be sorted on disk (`RunSorter`) without
/// holding them: comparing two keys as bytes gives the order comparing the items would.
///
/// The default order is the items' numbers: the order they came to this replica (`todo add`, a
/// pull, a clone), oldest first, which is also the order `list` can print without sorting
/// (`NumberedListing`). An item without a number (a table numbered before numbers existed) comes
/// after those that have one, by id. `--sort` keys come before it. A value is a type rank
/// (false/true, numbers, strings; an item without the field comes last) and its bytes: numbers as order-preserving 8
/// bytes, strings (and arrays or objects, as compact JSON) by UTF-8 bytes with an escape that
/// keeps them prefix-free, so a descending key is the same bytes inverted.
enum ListOrder {
    static func key(_ item: Item, number: Int?, sort: [SortField]) -> [UInt8] {
        fieldKey(item, sort: sort) + tail(number: number, key: ItemID.key(item.id))
    }

    /// The `--sort` part, known from the item alone.
    static func fieldKey(_ item: Item, sort: [SortField]) -> [UInt8] {
        var out: [UInt8] = []
        for field in sort {
            let found = ItemValue.of(field.name, in: item)
            guard let found, !found.isNull else {
                out.append(1)  // missing: last either way
                continue
            }
            var part: [UInt8] = []
            value(found, into: &part)
            out.append(0)
            out += field.descending ? part.map { ~$0 } : part
        }
        return out
    }

    /// The default order after the `--sort` keys: the number, then the id's key.
    static func tail(number: Int?, key: String) -> [UInt8] {
        var out: [UInt8] = []
        if let number {
            out.append(0)
            integer(UInt64(number), into: &out)
        } else {
            out.append(1)
        }
        string(key, into: &out)
        return out
    }

    static func value(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .bool(let b):
            out.append(0)
            out.append(b ? 1 : 0)
        case .number(let d):
            out.append(1)
            let bits = d.bitPattern
            integer(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), into: &out)
        case .string(let s):
            out.append(2)
            string(s, into: &out)
        case .array, .object:
            out.append(2)
            string(value.compactText, into: &out)
        case .null:
            out.append(3)
        }
    }

    /// UTF-8 bytes (their order is the scalars' order), 0 escaped as 0 255, ended by 0 0.
    static func string(_ s: String, into out: inout [UInt8]) {
        for byte in s.utf8 {
            out.append(byte)
            if byte == 0 { out.append(255) }
        }
        out.append(0)
        out.append(0)
    }

    static func integer(_ n: UInt64, into out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: n >> UInt64(shift))) }
    }
}
