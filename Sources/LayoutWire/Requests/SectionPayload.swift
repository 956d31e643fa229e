import LayoutEngine

/// A whole section sent in an `update` (`insertSection`, `reloadSection`) or a `diff`, before its
/// `params` are merged: that needs the kept layout's parameters, which only the daemon knows.
public struct SectionPayload: Sendable {
    let decoded: DecodedSection
    /// Where the section sits in the request, for error paths.
    let path: JSONPath

    /// The section with its `params` merged over `parameters` (the kept layout's spec).
    public func resolved(over parameters: LayoutParameters) throws(WireError) -> Section {
        var merged: LayoutParameters?
        if let params = decoded.params, !params.members.isEmpty {
            merged = try ParametersDecoder.merging(params, over: parameters, at: path / "params")
        }
        return Section(items: decoded.items, ids: decoded.ids, headerHeight: decoded.header, footerHeight: decoded.footer, parameters: merged)
    }
}

/// One operation of an `update`, as sent (PROTOCOL.md, `update`).
public enum UpdatePayload: Sendable {
    case delete(ItemIndexPath)
    case insert(ItemIndexPath, ItemSizing, id: ItemID?)
    case move(from: ItemIndexPath, to: ItemIndexPath)
    case reload(ItemIndexPath, ItemSizing, id: ItemID?)
    case deleteSection(Int)
    case insertSection(Int, SectionPayload)
    case moveSection(from: Int, to: Int)
    case reloadSection(Int, SectionPayload)
}

/// `update`: a batch for a kept layout.
public struct UpdateRequest: Sendable {
    public var layout: String
    public var updates: [UpdatePayload]
    /// Applies only when the layout is at this version (`version_conflict` otherwise).
    public var ifVersion: Int?

    /// The engine's batch, with whole sections resolved over the kept layout's parameters.
    public func batch(over parameters: LayoutParameters) throws(WireError) -> BatchUpdate {
        var operations: [BatchUpdate.Operation] = []
        operations.reserveCapacity(updates.count)
        for update in updates {
            switch update {
            case .delete(let at): operations.append(.delete(ItemPath(at)))
            case let .insert(at, sizing, id): operations.append(.insert(ItemPath(at), sizing, id: id))
            case let .move(from, to): operations.append(.move(from: ItemPath(from), to: ItemPath(to)))
            case let .reload(at, sizing, id): operations.append(.reload(ItemPath(at), sizing, id: id))
            case .deleteSection(let s): operations.append(.deleteSection(s))
            case let .insertSection(s, section): operations.append(.insertSection(s, try section.resolved(over: parameters)))
            case let .moveSection(from, to): operations.append(.moveSection(from: from, to: to))
            case let .reloadSection(s, section): operations.append(.reloadSection(s, try section.resolved(over: parameters)))
            }
        }
        return BatchUpdate(operations)
    }
}

/// `diff`: the new contents of a kept layout, by identity.
public struct DiffRequest: Sendable {
    public var layout: String
    public var sections: [SectionPayload]
    public var ifVersion: Int?

    /// The new sections, resolved over the kept layout's parameters.
    public func sections(over parameters: LayoutParameters) throws(WireError) -> [Section] {
        var result: [Section] = []
        result.reserveCapacity(sections.count)
        for section in sections { result.append(try section.resolved(over: parameters)) }
        return result
    }
}

extension ItemPath {
    init(_ path: ItemIndexPath) {
        self.init(section: path.section, item: path.item)
    }
}
