import ZeroMQ

/// The routing frames of a front-socket request (every frame but the body: for REQ and DEALER clients,
/// the peer's routing id and an empty delimiter), kept to address the reply.
///
/// All frames in one array, each behind its length, rather than an array of arrays: one allocation per
/// request instead of three on the I/O thread, which every client shares.
public struct Envelope: Sendable {
    /// Each frame as a 4-byte little-endian length followed by its bytes.
    private var storage: [UInt8] = []
    /// The number of frames.
    public private(set) var count = 0

    public init() {}

    /// An envelope of these frames, in order.
    public init(_ frames: [[UInt8]]) {
        for frame in frames {
            frame.withUnsafeBytes { append($0) }
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// Appends a frame.
    public mutating func append(_ frame: UnsafeRawBufferPointer) {
        if storage.isEmpty {
            // A routing id (5 bytes by default, 255 at most) and a delimiter: room for both at once.
            storage.reserveCapacity(frame.count + 16)
        }
        var length = UInt32(truncatingIfNeeded: frame.count).littleEndian
        withUnsafeBytes(of: &length) { storage.append(contentsOf: $0) }
        storage.append(contentsOf: frame)
        count += 1
    }

    /// Calls `body` with each frame in order; stops early when it returns false. Returns whether it
    /// went through every frame.
    @discardableResult
    public func forEachFrame(_ body: (UnsafeRawBufferPointer) throws(ZeroMQError) -> Bool) throws(ZeroMQError) -> Bool {
        // withUnsafeBytes rethrows untyped; carry the typed error out by hand.
        let result: Result<Bool, ZeroMQError> = storage.withUnsafeBytes { bytes in
            var offset = 0
            while offset + 4 <= bytes.count {
                let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                let start = offset + 4
                guard start + length <= bytes.count else { break }
                do throws(ZeroMQError) {
                    guard try body(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])) else { return .success(false) }
                } catch {
                    return .failure(error)
                }
                offset = start + length
            }
            return .success(true)
        }
        return try result.get()
    }

    /// The frames as arrays (for tests and logs).
    public var frames: [[UInt8]] {
        var frames: [[UInt8]] = []
        _ = try? forEachFrame { frame in
            frames.append(Array(frame))
            return true
        }
        return frames
    }
}
