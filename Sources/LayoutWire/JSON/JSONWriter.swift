/// A fast JSON byte writer: one growable buffer it owns, capacity checked once per token rather than per
/// byte, numbers formatted in place. Callers write commas and colons themselves.
///
/// Not copyable, so its buffer has exactly one owner and is freed exactly once. `@unchecked Sendable`
/// for the same reason: a writer cannot be shared, only moved, so handing a finished reply from a
/// worker thread to the sending thread transfers the buffer rather than aliasing it.
public struct JSONWriter: ~Copyable, @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written so far.
    public private(set) var count = 0

    /// An empty writer with room for `capacity` bytes before it first grows.
    public init(capacity: Int = 4096) {
        self.capacity = Swift.max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// The bytes written, as an array; the writer is done.
    public consuming func finish() -> [UInt8] {
        let count = self.count
        let base = self.base
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let destination = buffer.baseAddress, count > 0 {
                destination.update(from: base, count: count)
            }
            initialized = count
        }
    }

    /// Hands the buffer over without copying (for a zero-copy send, such as `zmq_msg_init_data`): the
    /// caller owns `count` initialized bytes at the returned address and must free them with
    /// `UnsafeMutableRawPointer.deallocate()`.
    public consuming func releaseBuffer() -> (base: UnsafeMutableRawPointer, count: Int) {
        let released = (UnsafeMutableRawPointer(base), count)
        discard self
        return released
    }

    /// The bytes written so far, without copying.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    // MARK: Capacity

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(toFit: extra) }
    }

    private mutating func grow(toFit extra: Int) {
        let newCapacity = Swift.max(capacity * 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Appends a byte; room must have been reserved.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    // MARK: Raw

    /// Appends one byte (a bracket, comma or colon).
    @inline(__always)
    public mutating func write(byte: UInt8) {
        reserve(1)
        put(byte)
    }

    /// Appends ASCII text as is: punctuation, member names with their quotes, literals.
    @inline(__always)
    public mutating func write(raw text: StaticString) {
        let length = text.utf8CodeUnitCount
        reserve(length)
        (base + count).update(from: text.utf8Start, count: length)
        count += length
    }

    /// Appends bytes that already form valid JSON (a pre-encoded piece).
    public mutating func write(raw bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        if let source = bytes.baseAddress, bytes.count > 0 {
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// Appends bytes that already form valid JSON (a pre-encoded piece).
    public mutating func write(raw bytes: [UInt8]) {
        bytes.withUnsafeBytes { write(raw: $0) }
    }

    /// Appends what another writer holds.
    public mutating func write(contentsOf other: borrowing JSONWriter) {
        other.withUnsafeBytes { write(raw: $0) }
    }

    /// Appends `"name":`; `name` must need no escaping.
    @inline(__always)
    public mutating func write(key name: StaticString) {
        let length = name.utf8CodeUnitCount
        reserve(length + 3)
        put(UInt8(ascii: "\""))
        (base + count).update(from: name.utf8Start, count: length)
        count += length
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    // MARK: Values

    public mutating func writeNull() {
        write(raw: "null")
    }

    public mutating func write(_ value: Bool) {
        if value { write(raw: "true") } else { write(raw: "false") }
    }

    /// A string, quoted and escaped.
    public mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in write(string: UnsafeRawBufferPointer(utf8)) }
    }

    /// UTF-8 bytes as a JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX`.
    public mutating func write(string utf8: UnsafeRawBufferPointer) {
        // Worst case every byte becomes \u00XX.
        reserve(utf8.count * 6 + 2)
        put(UInt8(ascii: "\""))
        for c in utf8 {
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                put(UInt8(ascii: "\\"))
                put(c)
            case 0x0A:
                put(UInt8(ascii: "\\"))
                put(UInt8(ascii: "n"))
            case 0x0D:
                put(UInt8(ascii: "\\"))
                put(UInt8(ascii: "r"))
            case 0x09:
                put(UInt8(ascii: "\\"))
                put(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                put(UInt8(ascii: "\\"))
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(hex.utf8Start[Int(c >> 4)])
                put(hex.utf8Start[Int(c & 0xF)])
            default:
                put(c)
            }
        }
        put(UInt8(ascii: "\""))
    }

    public mutating func write(_ value: Int) {
        write(Int64(value))
    }

    @inline(__always)
    public mutating func write(_ value: Int64) {
        reserve(20)
        if value < 0 { put(UInt8(ascii: "-")) }
        putDigits(value.magnitude)
    }

    /// The decimal digits of `value`; room must have been reserved (at most 20 bytes).
    @inline(__always)
    private mutating func putDigits(_ value: UInt64) {
        putDigits(value, length: Self.digitCount(value))
    }

    /// The `length` decimal digits of `value`.
    @inline(__always)
    private mutating func putDigits(_ value: UInt64, length: Int) {
        var remaining = value
        var index = count &+ length
        // Two digits per step from a table: half the divisions of one digit at a time.
        let pairs = Self.digitPairs.utf8Start
        while remaining >= 100 {
            let pair = Int(remaining % 100) &* 2
            remaining /= 100
            index &-= 2
            base[index] = pairs[pair]
            base[index &+ 1] = pairs[pair &+ 1]
        }
        if remaining >= 10 {
            let pair = Int(remaining) &* 2
            base[index &- 2] = pairs[pair]
            base[index &- 1] = pairs[pair &+ 1]
        } else {
            base[index &- 1] = UInt8(truncatingIfNeeded: remaining) &+ UInt8(ascii: "0")
        }
        count &+= length
    }

    /// "00", "01", … "99".
    private static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// The number of decimal digits of `value` (1 for 0), by a few comparisons (frame values are
    /// mostly below 10^8, where this takes three).
    @inline(__always)
    private static func digitCount(_ value: UInt64) -> Int {
        if value < 10_000 {
            if value < 100 { return value < 10 ? 1 : 2 }
            return value < 1_000 ? 3 : 4
        }
        if value < 100_000_000 {
            if value < 1_000_000 { return value < 100_000 ? 5 : 6 }
            return value < 10_000_000 ? 7 : 8
        }
        var length = 9
        var threshold: UInt64 = 1_000_000_000
        // 10^19 is the last power of ten below 2^64.
        while length < 20, value >= threshold {
            length &+= 1
            if length == 20 { break }
            threshold &*= 10
        }
        return length
    }

    /// A Double as JSON: integral values within ±2^53 as integers (no ".0"; -0.0 as "0"), others in the
    /// shortest form that parses back to the same Double.
    public mutating func write(_ value: Double) {
        // Within ±2^53 the conversion cannot trap, and converting back tells whether it was integral:
        // two instructions where `Int64(exactly:)` calls libm's trunc. NaN fails the range test.
        if value.magnitude <= 0x1p53 {
            let integer = Int64(value)
            if Double(integer) == value {
                // Covers -0.0 too, which prints as "0": JSON has no use for a negative zero in a frame.
                write(integer)
                return
            }
        }
        guard value.isFinite else {
            // Unreachable for validated inputs; null keeps the output valid JSON if it ever happens.
            writeNull()
            return
        }
        if writeShortDecimal(value) { return }
        var text = value.description
        text.withUTF8 { write(raw: UnsafeRawBufferPointer($0)) }
    }

    /// Writes `value` as `m / 10^k` for the smallest k in 1...6 whose digits parse back to exactly `value`,
    /// which is the shortest round-trip form; false when no such short form exists.
    ///
    /// Why this is exact: `m < 2^50` and `10^k` are exact doubles, so `m / 10^k` is the correctly rounded
    /// value of the decimal text, which is what a correct parser returns; comparing it with `value`
    /// is the round-trip test itself. Why it is shortest: below 2^50 the product `value * 10^k` is within
    /// a quarter of any decimal that rounds to `value`, so rounding it finds that decimal if one exists.
    @inline(__always)
    private mutating func writeShortDecimal(_ value: Double) -> Bool {
        var scale = 10.0
        for digits in 1...6 {
            let scaled = value * scale
            guard scaled.magnitude < 0x1p50 else { return false }
            // Nearest integer without libm's round: below 2^50 adding ½ is exact, then truncate.
            let m = Double(Int64(scaled < 0 ? scaled - 0.5 : scaled + 0.5))
            if m / scale == value {
                let magnitude = UInt64(m.magnitude)
                // A trailing zero means a shorter form was missed: let `description` decide.
                guard magnitude % 10 != 0 else { return false }
                putDecimal(magnitude, fractionDigits: digits, negative: m < 0)
                return true
            }
            scale *= 10
        }
        return false
    }

    /// `magnitude / 10^fractionDigits` with a decimal point and at least one integer digit:
    /// the digits of `magnitude` are written, then the last `fractionDigits` of them moved one place
    /// right to make room for the point (padded with zeros when `magnitude` has too few digits).
    private mutating func putDecimal(_ magnitude: UInt64, fractionDigits: Int, negative: Bool) {
        reserve(fractionDigits + 24)
        if negative { put(UInt8(ascii: "-")) }
        let length = Self.digitCount(magnitude)
        if length <= fractionDigits {
            put(UInt8(ascii: "0"))
            put(UInt8(ascii: "."))
            for _ in 0..<(fractionDigits - length) { put(UInt8(ascii: "0")) }
            putDigits(magnitude, length: length)
            return
        }
        putDigits(magnitude, length: length)
        var index = count
        for _ in 0..<fractionDigits {
            base[index] = base[index - 1]
            index -= 1
        }
        base[index] = UInt8(ascii: ".")
        count += 1
    }
}
