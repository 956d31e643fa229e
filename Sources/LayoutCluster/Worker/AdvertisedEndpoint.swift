#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The direct endpoint a worker gives out in READY when `cluster.directAdvertise` is not set.
///
/// A worker bound to a wildcard (`tcp://0.0.0.0:5570`, `tcp://*:5570`) can be reached on any of its
/// addresses, but a client told "0.0.0.0" would connect to itself. A container or a pod has one
/// address besides loopback, so that one is advertised: then `--scale worker=N` in compose, where no
/// per-container setting can name the container's address, gives each worker a reachable endpoint.
/// Where a machine has several addresses, set `cluster.directAdvertise`.
enum AdvertisedEndpoint {
    /// `bound` itself unless its host is a wildcard and this machine has a non-loopback IPv4 address.
    static func forBound(_ bound: String, hostAddress: () -> String? = firstNonLoopbackIPv4) -> String {
        guard bound.hasPrefix("tcp://"), let colon = bound.lastIndex(of: ":") else { return bound }
        let hostStart = bound.index(bound.startIndex, offsetBy: "tcp://".count)
        guard hostStart <= colon else { return bound }
        let host = bound[hostStart..<colon]
        guard ["0.0.0.0", "*", "[::]", "[::0]"].contains(host), let address = hostAddress() else { return bound }
        return "tcp://" + address + bound[colon...]
    }

    /// The first IPv4 address of an interface that is up and not loopback, in the kernel's order.
    static func firstNonLoopbackIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let found = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
            }
            if found { return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
        return nil
    }
}
