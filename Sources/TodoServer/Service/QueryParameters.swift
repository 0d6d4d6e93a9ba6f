import TableProtocol

/// The query string of a table request, checked as protocol §8.1 says: known `$` options and
/// `__` parameters (names ignoring case) at most once each; unknown `$…`/`__…` names are a 400 in
/// G1 and ignored in G2; other names are custom parameters and ignored.
struct QueryParameters {
    var filter: String?
    var orderby: String?
    var top: String?
    var skip: String?
    var select: [String]?
    var inlinecount: String?
    var includeDeleted = false
    var systemProperties: Set<SystemProperty> = []

    static let options = ["$filter", "$orderby", "$top", "$skip", "$select", "$inlinecount"]

    static func parse(_ items: [HTTPQueryItem], generation: Generation, byID: Bool) throws(ServiceError) -> QueryParameters {
        var q = QueryParameters()
        var seen = Set<String>()
        for item in items {
            let name = item.name.lowercased()
            let defined = options.contains(name) || name == "__includedeleted" || name == "__systemproperties"
                || name == "zumo-api-version"
            if defined {
                if !seen.insert(name).inserted { throw .badRequest("The query parameter '\(item.name)' was given more than once.") }
            } else if name.hasPrefix("$") || name.hasPrefix("__") {
                if generation == .mobileServices { throw .badRequest("The query parameter '\(item.name)' is not supported.") }
                continue
            }
            switch name {
            case "$filter": q.filter = item.value
            case "$orderby": q.orderby = item.value
            case "$top": q.top = item.value
            case "$skip": q.skip = item.value
            case "$select": q.select = try parseSelect(item.value)
            case "$inlinecount": q.inlinecount = item.value
            case "__includedeleted": q.includeDeleted = item.value.lowercased() == "true"
            case "__systemproperties":
                if generation == .mobileServices { q.systemProperties = try parseSystemProperties(item.value) }
            default: break
            }
        }
        if byID && generation == .mobileServices {
            for option in ["$top", "$skip", "$orderby", "$inlinecount"] where seen.contains(option) {
                throw .badRequest("The query option '\(option)' cannot be used when reading one item by id.")
            }
        }
        return q
    }

    /// `*` or a comma-separated list of names (protocol §8.10).
    static func parseSelect(_ value: String) throws(ServiceError) -> [String]? {
        let trimmed = value.trimmingWhitespace()
        if trimmed == "*" { return nil }
        var names: [String] = []
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(part).trimmingWhitespace()
            guard ItemBody.isIdentifier(name) else {
                throw .badRequest("Invalid $select: '\(name)' is not a property name.")
            }
            names.append(name)
        }
        return names
    }

    /// `*`, or a list of names with or without `__`, any case (protocol §4.8.1).
    static func parseSystemProperties(_ value: String) throws(ServiceError) -> Set<SystemProperty> {
        let trimmed = value.trimmingWhitespace()
        if trimmed == "*" { return Set(SystemProperty.allCases) }
        var result = Set<SystemProperty>()
        for part in trimmed.split(separator: ",") {
            let name = String(part).trimmingWhitespace()
            if name.isEmpty { continue }
            guard let p = SystemProperty(anySpelling: name) else {
                throw .badRequest("Invalid __systemproperties entry '\(name)'; use createdAt, updatedAt, version, deleted or *.")
            }
            result.insert(p)
        }
        return result
    }
}
