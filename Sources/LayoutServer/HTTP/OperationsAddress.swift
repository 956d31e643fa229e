/// Where the operations HTTP listener binds: `host:port`, an IPv6 host in brackets (`[::1]:5558`);
/// port 0 asks the system for a free one.
public struct OperationsAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `127.0.0.1:5558`, `localhost:0`, `[::1]:5558`, `0.0.0.0:5558`; nil when it is none of those.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            return nil
        }
        var host = Substring(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = host.dropFirst().dropLast()
        } else if host.contains(":") {
            // An IPv6 host must be bracketed, or its last group would read as the port.
            return nil
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        self.init(host: String(host), port: port)
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
