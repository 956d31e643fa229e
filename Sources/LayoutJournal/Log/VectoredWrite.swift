#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `pwritev` of a record's pieces, whole: the log's one way of writing. Public for layoutd-bench's floor,
/// which times exactly the log's write.
public enum VectoredWrite {
    /// Writes `pieces`, one after the other, to `descriptor` from `offset`: at most 1024 of them a call
    /// (Linux's IOV_MAX), again from where a short write stopped.
    public static func write(_ pieces: [UnsafeRawBufferPointer], to descriptor: Int32, at offset: Int, path: String) throws(JournalError) {
        let total = pieces.reduce(0) { $0 + $1.count }
        var written = 0
        while written < total {
            var vectors: [iovec] = []
            var skip = written
            for piece in pieces where vectors.count < 1024 {
                if skip >= piece.count {
                    skip -= piece.count
                    continue
                }
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.baseAddress.map { $0 + skip }), iov_len: piece.count - skip))
                skip = 0
            }
            let result = pwritev(descriptor, vectors, Int32(vectors.count), off_t(offset + written))
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                let reason = result < 0 ? String(cString: strerror(errno)) : "nothing written"
                throw JournalError(.writeFailed, "\(path): write failed: \(reason)")
            }
            written += result
        }
    }
}
