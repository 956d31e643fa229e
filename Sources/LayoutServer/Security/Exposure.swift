/// Which endpoints other machines can reach, for the warning a daemon without CURVE logs at start.
enum Exposure {
    /// The front, events and stats endpoints of `configuration` that are not local: tcp on an address
    /// other than loopback (`*`, `0.0.0.0`, an interface or a host address), or a multicast transport.
    static func reachableEndpoints(of configuration: ServerConfiguration) -> [String] {
        [configuration.frontEndpoint, configuration.eventsEndpoint, configuration.statsEndpoint].filter { !isLocal($0) }
    }

    /// Whether only this machine can connect to `endpoint`.
    static func isLocal(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("inproc://") || endpoint.hasPrefix("ipc://") { return true }
        guard endpoint.hasPrefix("tcp://") else { return false }
        var host = endpoint.dropFirst("tcp://".count)
        // The port follows the last colon (an IPv6 address has colons of its own, inside brackets).
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return host == "localhost" || host == "lo" || host == "lo0" || host.hasPrefix("127.") || host == "::1"
    }
}
