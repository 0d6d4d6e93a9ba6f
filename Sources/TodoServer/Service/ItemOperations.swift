import TableProtocol
import TodoModel

/// Insert, read, update, delete and undelete of one item (protocol §5, §6, §7).
///
/// Each answer renders its row with the schema of the same moment: a write's answer with the
/// schema its write left (`TableWrite.schema`, which includes the columns the write added), a read
/// with the schema of its snapshot. Either way the schema lists every column the row has.
extension TableService {
    /// What a conditional write found: done, or a conflict to answer with the server's row.
    enum WriteOutcome {
        case stored(StoredRow)
        case unchanged(StoredRow)
        case conflict(StoredRow, status: Int)
        case missing
    }

    func insert(_ c: RequestContext, _ ticket: inout DurabilityTicket) throws(ServiceError) -> HTTPResponse {
        let integerIDs = c.table.idType == .autoIncrement
        let body = try ItemBody.read(c.request.body, generation: c.generation, purpose: .insert, integerIDs: integerIDs)
        if integerIDs && body.id != nil {
            // As Mobile Services answered for tables with integer ids: the id is the server's to choose.
            throw .badRequest("The table '\(c.table.name)' hands out its ids (autoIncrement): leave 'id' out of an insert, or send null.")
        }
        let columns = try c.ownership.columns(body.columns, table: c.table.name, inserting: true)
        let (outcome, schema) = try write(c, readingFirst: integerIDs ? nil : body.id, &ticket) { w throws(ServiceError) -> WriteOutcome in
            let id: String
            if integerIDs {
                guard let next = w.nextID() else {
                    throw ServiceError(507, "The table '\(c.table.name)' has handed out every integer id up to \(IntegerID.maximum).")
                }
                id = next
            } else {
                id = body.id ?? ids.next()
            }
            if let existing = w.row(id: id) {
                // Another user's row: its id is taken, but nothing of it is shown (see the README).
                guard c.ownership.sees(existing) else {
                    throw ServiceError(409, "The id '\(c.table.idType.display(id))' is already used in the table '\(c.table.name)'; choose another id.")
                }
                return .conflict(existing, status: 409)
            }
            try SchemaCheck.apply(columns, to: &w, maximumColumns: configuration.maxColumns, learns: c.table.dynamicSchema)
            let stamp = w.nextStamp()
            let row = StoredRow(id: id, columns: columns, createdAt: stamp.updatedAt, updatedAt: stamp.updatedAt,
                                version: stamp.version, deleted: false)
            w.put(row)
            return .stored(row)
        }
        guard case .stored(let row) = outcome else { return try answer(outcome, c, schema: schema) }
        var response = itemResponse(201, row, c, renderer: c.renderer, schema: schema)
        response.headers.set(name: "Location", value: Self.location(c.baseURL, schema.name, schema.idType.display(row.id)))
        return response
    }

    /// The URL of an item, `{base}/tables/{table}/{id}` with the id percent-encoded (`TextAssembly`:
    /// an interpolation cost 3,400 instructions an insert).
    static func location(_ baseURL: String, _ table: String, _ id: String) -> String {
        TextAssembly.join(baseURL, "/tables/", table, "/", PercentEncoding.encode(id))
    }

    func read(_ c: RequestContext, id: String, _ ticket: inout DurabilityTicket) throws(ServiceError) -> HTTPResponse {
        let found = try storageRead { () throws(StorageError) in try storage.readRow(c.table.name, id: id, ticket: &ticket) }
        guard let found, let row = found.row, c.ownership.sees(row), !row.deleted || c.query.includeDeleted else {
            throw .notFound("The item '\(c.table.idType.display(id))' does not exist.")
        }
        if c.generation == .mobileServices, let tag = c.request.headers["If-None-Match"]?.trimmingWhitespace(),
           tag == "*" || tag == RowRenderer.etag(row) {
            return HTTPResponse(status: 304)
        }
        return itemResponse(200, row, c, renderer: c.renderer, schema: found.schema)
    }

    func update(_ c: RequestContext, id urlID: String?, _ ticket: inout DurabilityTicket) throws(ServiceError) -> HTTPResponse {
        let body = try ItemBody.read(c.request.body, generation: c.generation, purpose: .update,
                                     integerIDs: c.table.idType == .autoIncrement)
        let columns = try c.ownership.columns(body.columns, table: c.table.name, inserting: false)
        let id: String
        if let urlID {
            if let bodyID = body.id, !ItemID.same(bodyID, urlID) {
                throw .badRequest("The body's id '\(c.table.idType.display(bodyID))' differs from the id in the URL '\(c.table.idType.display(urlID))'.")
            }
            id = urlID
        } else {
            guard let bodyID = body.id else { throw .badRequest("An id is required: give it in the body or the URL.") }
            id = bodyID
        }
        let ifMatch = try IfMatch.parse(c.request.headers["If-Match"])
        let oneStep = try patchInOneStep(c, id: id, columns: columns, ifMatch: ifMatch, bodyVersion: body.version, &ticket)
        let (outcome, schema) = if let oneStep { oneStep } else { try write(c, readingFirst: id, &ticket) { w throws(ServiceError) -> WriteOutcome in
            guard var row = w.row(id: id), !row.deleted, c.ownership.sees(row) else { return .missing }
            if let conflict = Self.versionConflict(row, ifMatch: ifMatch, bodyVersion: body.version) { return conflict }
            if columns.isEmpty { return .unchanged(row) }
            try SchemaCheck.apply(columns, to: &w, maximumColumns: configuration.maxColumns, learns: c.table.dynamicSchema)
            let stamp = w.nextStamp()
            for (name, value) in columns { row.columns[name] = value }
            row.updatedAt = stamp.updatedAt
            row.version = stamp.version
            w.put(row)
            return .stored(row)
        } }
        var renderer = c.renderer
        if ifMatch != nil { renderer.systemProperties.insert(.version) }
        switch outcome {
        case .stored(let row), .unchanged(let row): return itemResponse(200, row, c, renderer: renderer, schema: schema)
        default: return try answer(outcome, c, id: id, schema: schema)
        }
    }

    func delete(_ c: RequestContext, id: String, _ ticket: inout DurabilityTicket) throws(ServiceError) -> HTTPResponse {
        let ifMatch = try IfMatch.parse(c.request.headers["If-Match"])
        let soft = c.table.softDelete
        let (outcome, schema) = try write(c, readingFirst: id, &ticket) { w throws(ServiceError) -> WriteOutcome in
            guard var row = w.row(id: id), !row.deleted, c.ownership.sees(row) else { return .missing }
            if let conflict = Self.versionConflict(row, ifMatch: ifMatch, bodyVersion: nil) { return conflict }
            let stamp = w.nextStamp()
            if soft {
                row.deleted = true
                row.updatedAt = stamp.updatedAt
                row.version = stamp.version
                w.put(row)
            } else {
                w.remove(id: id)
            }
            return .stored(row)
        }
        guard case .stored(let row) = outcome else { return try answer(outcome, c, id: id, schema: schema) }
        if c.generation == .mobileServices { return HTTPResponse(status: 204) }
        return itemResponse(200, row, c, renderer: c.renderer, schema: schema)
    }

    func undelete(_ c: RequestContext, id: String, _ ticket: inout DurabilityTicket) throws(ServiceError) -> HTTPResponse {
        let body = c.request.body
        if !body.isEmpty {
            let value = try? JSONValue.parse(body)
            guard value == .null || value == .object([:]) else {
                throw .badRequest("An undelete takes no body (or null, or {}).")
            }
        }
        guard c.table.softDelete else { throw .badRequest("The table '\(c.table.name)' does not keep deleted items, so nothing can be undeleted.") }
        let ifMatch = try IfMatch.parse(c.request.headers["If-Match"])
        let (outcome, schema) = try write(c, readingFirst: id, &ticket) { w throws(ServiceError) -> WriteOutcome in
            guard var row = w.row(id: id), c.ownership.sees(row) else { return .missing }
            if let conflict = Self.versionConflict(row, ifMatch: ifMatch, bodyVersion: nil) { return conflict }
            guard row.deleted else { return .unchanged(row) }
            let stamp = w.nextStamp()
            row.deleted = false
            row.updatedAt = stamp.updatedAt
            row.version = stamp.version
            w.put(row)
            return .stored(row)
        }
        switch outcome {
        case .stored(let row), .unchanged(let row):
            return itemResponse(c.generation == .mobileServices ? 200 : 201, row, c, renderer: c.renderer, schema: schema)
        default: return try answer(outcome, c, id: id, schema: schema)
        }
    }

    // MARK: Shared

    /// Protocol §6.3: a mismatching `If-Match` is a 412, a mismatching G2 body version a 409.
    static func versionConflict(_ row: StoredRow, ifMatch: IfMatch?, bodyVersion: String?) -> WriteOutcome? {
        let current = VersionText.encode(row.version)
        switch ifMatch {
        case .any: return nil
        case .weak: return .conflict(row, status: 412)
        case .version(let v): return v == current ? nil : .conflict(row, status: 412)
        case nil:
            if let bodyVersion, bodyVersion != current { return .conflict(row, status: 409) }
            return nil
        }
    }

    /// Responses for outcomes other than success: 404, or 409/412 with the server's row.
    func answer(_ outcome: WriteOutcome, _ c: RequestContext, id: String? = nil,
                schema: TableSchema) throws(ServiceError) -> HTTPResponse {
        switch outcome {
        case .missing: throw .notFound("The item '\(c.table.idType.display(id ?? ""))' does not exist.")
        case .conflict(let row, let status): return itemResponse(status, row, c, renderer: .conflict(c.generation), schema: schema)
        case .stored(let row), .unchanged(let row): return itemResponse(200, row, c, renderer: c.renderer, schema: schema)
        }
    }

    /// One item with its ETag: always in G2 and for 409/412; in G1 when the body shows `__version`.
    /// `schema`: the table's schema at the moment `row` was read or written (never a later read:
    /// see `TableTarget`).
    func itemResponse(_ status: Int, _ row: StoredRow, _ c: RequestContext, renderer: RowRenderer,
                      schema: TableSchema) -> HTTPResponse {
        let rendered = renderer.renderObject(row, schema: schema)
        var response = json(status, bytes: rendered.bytes)
        if c.generation == .mobileApps || status == 409 || status == 412 || rendered.showsVersion {
            response.headers.set(name: "ETag", value: RowRenderer.etag(
                versionText: rendered.versionText ?? VersionText.encode(row.version)))
        }
        return response
    }

    /// Runs a conditional write; storage failures become 503 (nothing was acknowledged). Returns
    /// the outcome with the schema as the write left it, for rendering the outcome's row, and adds
    /// to `ticket` what must be durable before it is acknowledged. An insert into a table that
    /// does not exist yet (dynamic tables) creates it with this write.
    /// `id`: the row the body reads first, when known before it runs.
    func write(_ c: RequestContext, readingFirst id: String?, _ ticket: inout DurabilityTicket,
               _ body: (inout TableWrite) throws(ServiceError) -> WriteOutcome)
        throws(ServiceError) -> (outcome: WriteOutcome, schema: TableSchema)
    {
        let run = { (w: inout TableWrite) throws -> (outcome: WriteOutcome, schema: TableSchema) in
            let outcome = try body(&w)
            return (outcome, w.schema)
        }
        do {
            if c.table.isNew {
                return try storage.write(c.table.name, creatingWithSoftDelete: c.table.softDelete, ticket: &ticket, run)
            }
            if let id { return try storage.write(c.table.name, readingFirst: id, ticket: &ticket, run) }
            return try storage.write(c.table.name, ticket: &ticket, run)
        } catch let e as ServiceError {
            throw e
        } catch let e as StorageError where e.kind == .quotaExceeded || e.kind == .rowTooLarge {
            throw .limit(e)
        } catch let e as StorageError where e.kind == .invalidValue {
            throw .invalidValue(e)
        } catch {
            if c.table.isNew { throw ServiceError(503, "The table '\(c.table.name)' could not be created: \(error).") }
            throw .storageUnavailable(error)
        }
    }
}
