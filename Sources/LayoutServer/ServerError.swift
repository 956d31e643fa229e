/// A failure of the daemon itself (not of a request).
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
