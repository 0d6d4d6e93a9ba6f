import TodoModel
import TodoSync

/// `todo pull --verify` as text and as JSON.
enum VerifyRenderer {
    static func text(_ r: RemoteVerifier.Report) -> [String] {
        var lines: [String] = []
        for t in r.tables where t.rejected == nil {
            let found = r.differences.filter { $0.table == t.table }.count
            lines.append("verified \(t.table): \(t.rows) row\(t.rows == 1 ? "" : "s"), "
                         + (found == 0 ? "every copy agrees with the server" : "\(found) cop\(found == 1 ? "y differs" : "ies differ") from the server at the same version"))
        }
        for d in r.differences {
            let changes = d.fields.map { "\($0.name) \(value($0.here)) here, \(value($0.server)) on the server" }.joined(separator: "; ")
            lines.append("  \(ShortID.of(d.id))  \(place(d.place)) at version \(d.version): \(changes)")
        }
        if !r.differences.isEmpty {
            if r.repaired {
                let numbers = r.receipts.map { "#\($0)" }.joined(separator: ", ")
                lines.append("repaired \(r.differences.count) cop\(r.differences.count == 1 ? "y" : "ies") from the server's rows; the replaced values are in receipt\(r.receipts.count == 1 ? "" : "s") \(numbers) ('todo log')")
            } else {
                lines.append("  (use \"todo pull --verify\" to replace them with the server's rows; receipts keep the replaced values)")
            }
        }
        return lines
    }

    static func json(_ r: RemoteVerifier.Report) -> JSONValue {
        [
            "tables": .array(r.tables.map { t in
                ["table": .string(t.table), "rows": .number(Double(t.rows)), "rejected": t.rejected.map { .string(PullNoticeText.refusal($0)) } ?? .null]
            }),
            "differences": .array(r.differences.map { d in
                var o: [String: JSONValue] = [
                    "table": .string(d.table), "id": .string(d.id), "version": .string(d.version),
                    "fields": .array(d.fields.map { ["name": .string($0.name), "here": $0.here ?? .null, "server": $0.server ?? .null] }),
                ]
                switch d.place {
                case .item: o["place"] = "item"
                case .base(let sequence): o["place"] = "base"; o["sequence"] = .number(Double(sequence))
                case .conflictServerCopy: o["place"] = "conflict"
                }
                return .object(o)
            }),
            "repaired": .bool(r.repaired && !r.differences.isEmpty),
            "receipts": .array(r.receipts.map { .number(Double($0)) }),
            "warnings": .array(r.warnings.map { .string(PullNoticeText.warning($0)) }),
            "stop": SyncRenderer.stopJSON(r.stop),
        ]
    }

    static func place(_ place: VersionCheck.Place) -> String {
        switch place {
        case .item: "item"
        case .base(let sequence): "base of operation #\(sequence)"
        case .conflictServerCopy: "server copy in its conflict file"
        }
    }

    static func value(_ v: JSONValue?) -> String { v.map(\.compactText) ?? "absent" }
}
