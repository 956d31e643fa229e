/// A rejected input: a stable code, a human message, and the JSON path of the offending field.
public struct LayoutError: Error, Hashable, Sendable {
    /// The error codes of the wire contract (PROTOCOL.md) that the engine can raise.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A value or shape the contract does not allow.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// Over a configured limit.
        public static let tooLarge = Code(rawValue: "too_large")
        /// A batch update broke a rule of LAYOUTS.md; the batch was not applied.
        public static let invalidUpdate = Code(rawValue: "invalid_update")
        /// `ifVersion` did not match the layout's version.
        public static let versionConflict = Code(rawValue: "version_conflict")
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
}

extension LayoutError: CustomStringConvertible {
    public var description: String {
        if let path { return "\(code): \(message) (at \(path))" }
        return "\(code): \(message)"
    }
}
