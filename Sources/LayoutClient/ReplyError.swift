/// The daemon's answer to a request it could not carry out: `{"ok":false,"error":{code, message, path}}`.
public struct ReplyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The wire's error code; unknown codes (from a newer daemon) are kept as they came.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `invalid_json`: the body is not one JSON object.
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// `invalid_request`: a field is missing, has the wrong type or an invalid value.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// `unknown_op`: the daemon does not know the op.
        public static let unknownOp = Code(rawValue: "unknown_op")
        /// `unknown_layout`: no layout is kept under the key.
        public static let unknownLayout = Code(rawValue: "unknown_layout")
        /// `invalid_update`: a batch update was rejected; `path` names the first offending update.
        public static let invalidUpdate = Code(rawValue: "invalid_update")
        /// `version_conflict`: `ifVersion` did not match the kept layout's version.
        public static let versionConflict = Code(rawValue: "version_conflict")
        /// `too_large`: the request is over one of the daemon's limits.
        public static let tooLarge = Code(rawValue: "too_large")
        /// `busy`: the daemon's queue is full; retry later.
        public static let busy = Code(rawValue: "busy")
        /// `unavailable`: a cluster has no worker serving, or the worker running a change died before
        /// answering; retry (with `ifVersion` for a change).
        public static let unavailable = Code(rawValue: "unavailable")
        /// `internal`: a fault in the daemon.
        public static let `internal` = Code(rawValue: "internal")
        /// `moved`: a cluster worker's direct endpoint does not serve this read (not its key at that
        /// epoch, or its read lease lapsed); ask the broker.
        public static let moved = Code(rawValue: "moved")
        /// `behind`: a cluster worker's copy is older than the read's `minVersion`; ask the broker.
        public static let behind = Code(rawValue: "behind")
        /// `read_only`: a change sent to a cluster worker's direct endpoint; send it to the broker.
        public static let readOnly = Code(rawValue: "read_only")

        public var description: String { rawValue }
    }

    public let code: Code
    public let message: String
    /// The offending field, such as `sections[2].items[17].height` or `updates[3]`, where there is one.
    public let path: String?

    public init(code: Code, message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// `error <code>: <message> (at <path>)`, the form layoutctl prints.
    public var description: String {
        let location = path.map { " (at \($0))" } ?? ""
        return "error \(code): \(message)\(location)"
    }
}
