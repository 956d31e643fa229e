/// The binary frames a request carries after its JSON body (PROTOCOL.md §2, "Binary frames"),
/// numbered from 1: the body refers to them as `{"frame": k}`.
///
/// Views into the received messages, valid only while the decoder runs: the caller keeps the
/// messages alive around the call.
public struct AttachedFrames {
    /// A request with no frames after its body.
    public static var none: AttachedFrames { AttachedFrames([]) }

    private let frames: [UnsafeRawBufferPointer]

    public init(_ frames: [UnsafeRawBufferPointer]) {
        self.frames = frames
    }

    public var count: Int { frames.count }

    /// Frame `number` (from 1), or nil when there is no such frame.
    func frame(_ number: Int) -> UnsafeRawBufferPointer? {
        guard number >= 1, number <= frames.count else { return nil }
        return frames[number - 1]
    }
}

extension ColumnDecoder {
    /// A size column given as `{"frame": k}`: frame k's little-endian float64 values, one per item,
    /// each finite and obeying `rule` (a binary column has no "unset" value).
    ///
    /// Read with one pass over the frame's bytes: this is what saves a large `prepare` its number
    /// parsing (docs/BENCHMARKS.md).
    static func sizes(_ reader: inout JSONReader, frames: AttachedFrames, rule: SizeRule, at path: JSONPath) throws(WireError) -> [Double] {
        let object = try reader.readValue().object(at: path)
        guard let frameValue = object["frame"] else {
            throw .invalidRequest("must be an array of numbers, or {\"frame\": k} naming a binary frame after the body", at: path)
        }
        let numberValue = try frameValue.number(at: path / "frame")
        guard numberValue.rounded() == numberValue, numberValue >= 1, numberValue <= Double(Int32.max) else {
            throw .invalidRequest("must be an integer >= 1 (a frame after the body), not \(numberValue)", at: path / "frame")
        }
        for member in object.members where member.key != "frame" {
            throw .invalidRequest("unknown field \"\(member.key)\" in a frame reference; it takes only \"frame\"", at: path / member.key)
        }
        let number = Int(numberValue)
        guard let frame = frames.frame(number) else {
            let sent = frames.count == 1 ? "1 frame was" : "\(frames.count) frames were"
            throw .invalidRequest("names frame \(number), but \(sent) sent after the body", at: path / "frame")
        }
        guard frame.count % 8 == 0 else {
            throw .invalidRequest(
                "frame \(number) has \(frame.count) bytes, not a whole number of float64 values (8 bytes each)", at: path
            )
        }
        let count = frame.count / 8
        var values = [Double](repeating: 0, count: count)
        var bad: (index: Int, value: Double)?
        values.withUnsafeMutableBufferPointer { out in
            for index in 0..<count {
                let value = Double(bitPattern: UInt64(littleEndian: frame.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)))
                // NaN fails both rules, and infinity is caught by isFinite.
                if !(value.isFinite && rule.accepts(value)) {
                    bad = (index, value)
                    break
                }
                out[index] = value
            }
        }
        if let bad {
            let message = bad.value.isFinite ? rule.message(for: bad.value) : "must be a finite number, not \(bad.value)"
            throw .invalidRequest(message, at: path / bad.index)
        }
        return values
    }
}
