import LayoutEngine

/// A query's `pin` and `dynamics`: options of a rect query whose rect is the visible bounds.
///
/// Their members are checked by name, as a layout's parameters are: a misspelt `"header": true` would
/// otherwise pin nothing without a word.
extension RequestFields {
    /// `pin`: `{"headers": bool, "footers": bool}`, each optional (false); only with `rect`.
    func pinning(for selection: AttributeSelection) throws(WireError) -> Pinning {
        guard let value = controls.optional(.pin) else { return .none }
        let path = JSONPath.root / "pin"
        try Self.requireRect(selection, for: "pin")
        let object = try value.object(at: path)
        try Self.rejectUnknownMembers(of: object, known: ["headers", "footers"], at: path)
        return Pinning(
            headers: try object.optional("headers")?.bool(at: path / "headers") ?? false,
            footers: try object.optional("footers")?.bool(at: path / "footers") ?? false
        )
    }

    /// `dynamics`: `{"scrollDelta": d, "touch": {"x", "y"}, "resistance": r}`, resistance optional
    /// (1500); only with `rect`. Ranges are the engine's (`ScrollDynamics.validate`), with the same paths.
    func dynamics(for selection: AttributeSelection) throws(WireError) -> ScrollDynamics? {
        guard let value = controls.optional(.dynamics) else { return nil }
        let path = JSONPath.root / "dynamics"
        try Self.requireRect(selection, for: "dynamics")
        let object = try value.object(at: path)
        try Self.rejectUnknownMembers(of: object, known: ["scrollDelta", "touch", "resistance"], at: path)
        let scrollDelta = try object.required("scrollDelta", in: path).number(at: path / "scrollDelta")
        let touchPath = path / "touch"
        let touchObject = try object.required("touch", in: path).object(at: touchPath)
        try Self.rejectUnknownMembers(of: touchObject, known: ["x", "y"], at: touchPath)
        let touch = Point(
            x: try touchObject.required("x", in: touchPath).number(at: touchPath / "x"),
            y: try touchObject.required("y", in: touchPath).number(at: touchPath / "y")
        )
        let resistance = try object.optional("resistance")?.number(at: path / "resistance") ?? ScrollDynamics.defaultResistance
        let dynamics = ScrollDynamics(scrollDelta: scrollDelta, touch: touch, resistance: resistance)
        do throws(LayoutError) {
            try dynamics.validate()
        } catch {
            throw WireError(error)
        }
        return dynamics
    }

    private static func requireRect(_ selection: AttributeSelection, for name: String) throws(WireError) {
        guard case .rect = selection else {
            throw .invalidRequest("\"\(name)\" needs \"rect\", the visible bounds it works in", at: .root / name)
        }
    }

    private static func rejectUnknownMembers(of object: JSONObject, known: [String], at path: JSONPath) throws(WireError) {
        for member in object.effectiveMembers where !known.contains(member.key) {
            let names = known.map { "\"\($0)\"" }.joined(separator: ", ")
            throw .invalidRequest("unknown member \"\(member.key)\"; it takes: \(names)", at: path / member.key)
        }
    }
}
