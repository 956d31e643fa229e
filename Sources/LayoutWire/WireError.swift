import LayoutEngine

/// A failed request as the wire reports it: a stable code, a human message, and the JSON path of the
/// offending field where there is one (PROTOCOL.md, Requests and replies).
public struct WireError: Error, Hashable, Sendable {
    /// Every error code of the wire contract.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The body is not one strict JSON (RFC 8259) document.
        case invalidJSON = "invalid_json"
        /// Valid JSON, but a value or shape the contract does not allow.
        case invalidRequest = "invalid_request"
        /// `op` names no operation.
        case unknownOperation = "unknown_op"
        /// `layout` names no kept layout.
        case unknownLayout = "unknown_layout"
        /// A batch update broke a rule of LAYOUTS.md; nothing was applied.
        case invalidUpdate = "invalid_update"
        /// `ifVersion` did not match the layout's version.
        case versionConflict = "version_conflict"
        /// Over a configured limit.
        case tooLarge = "too_large"
        /// The job queue is full; retry later.
        case busy
        /// A cluster could not run the request: no worker is serving, or the worker running a change died
        /// before answering, so whether the change was applied is unknown. Retry (with `ifVersion` for a
        /// change, to apply it at most once).
        case unavailable
        /// A fault of the daemon itself.
        case `internal`
        /// A cluster worker's direct endpoint does not serve this read: it does not own the key at the
        /// epoch the client named, or its read lease lapsed. Ask the broker (and refresh the route table).
        case moved
        /// A cluster worker's direct endpoint owns the key but its copy is older than the `minVersion`
        /// the client named. Ask the broker, or again later.
        case behind
        /// A cluster worker's direct endpoint answers reads only; changes go to the broker.
        case readOnly = "read_only"
    }

    public var code: Code
    public var message: String
    /// e.g. `sections[2].items[17].height`; nil when no single field is at fault.
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// The engine's error, with its code mapped onto the wire's (an unknown engine code becomes `internal`).
    public init(_ error: LayoutError) {
        self.init(Code(rawValue: error.code.rawValue) ?? .internal, error.message, path: error.path)
    }

    static func invalidJSON(_ message: String, at offset: Int) -> WireError {
        WireError(.invalidJSON, "\(message) at byte \(offset)")
    }

    static func invalidRequest(_ message: String, at path: JSONPath) -> WireError {
        WireError(.invalidRequest, message, path: path.fieldPath)
    }

    /// The same error located at `path`, unless it already names a field or is a syntax error
    /// (a syntax error is about bytes, not fields).
    func located(at path: @autoclosure () -> JSONPath) -> WireError {
        guard self.path == nil, code != .invalidJSON else { return self }
        var located = self
        located.path = path().fieldPath
        return located
    }
}

extension WireError: CustomStringConvertible {
    public var description: String {
        if let path { return "\(code.rawValue): \(message) (at \(path))" }
        return "\(code.rawValue): \(message)"
    }
}
