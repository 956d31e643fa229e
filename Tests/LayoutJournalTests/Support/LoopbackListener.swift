import LayoutTestKit

#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 that accepts connections into its backlog and never answers them.
final class LoopbackListener {
    private var descriptor: Int32
    let port: Int

    init() throws {
        let opened = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(opened, $0, length) == 0 && getsockname(opened, $0, &length) == 0 }
        }
        guard opened >= 0, bound, listen(opened, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            if opened >= 0 { Glibc.close(opened) }
            throw PostgresServer.Failure(description: "cannot listen on 127.0.0.1: \(reason)")
        }
        descriptor = opened
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}
