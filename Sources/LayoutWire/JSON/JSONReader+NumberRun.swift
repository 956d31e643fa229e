// The bulk loop of a size column (`"heights":[20,20.5,21,…]`, 10^6 numbers): simple numbers and bare
// commas read in one loop, with the reader's place in a register and no call per element. Anything
// else stops the run where it stands, and the general path reads (or reports) it exactly as it would
// have without this loop.

extension JSONReader {
    /// Appends the simple numbers (`simpleNumber(at:in:)`) obeying `rule` that follow `offset` in an
    /// array, separated by bare commas.
    ///
    /// Returns true when it stopped right after a number it read (the next byte is not a comma: `]`,
    /// whitespace or garbage), false when it stopped at the start of an element it did not read
    /// (offset there), which may be the first.
    @inline(__always)
    mutating func appendSimpleNumbers(to values: inout ColumnBuffer<Double>, rule: SizeRule) -> Bool {
        // `simpleNumber` reads at most 21 bytes; 32 left rule out any read past the body.
        guard let base = bytes.baseAddress else { return false }
        let last = bytes.count &- 32
        var i = offset
        // The rule as one comparison, instead of a switch per element (NaN never reaches it).
        let lowest = rule.lowestAccepted
        while i <= last {
            guard let number = Self.simpleNumber(at: i, in: base) else { break }
            // A value the rule refuses is read again by the general path, which reports it.
            guard number.value >= lowest else { break }
            values.append(number.value)
            // Wrapping: `number.end` is within the 32 bytes checked.
            guard base.load(fromByteOffset: number.end, as: UInt8.self) == UInt8(ascii: ",") else {
                offset = number.end
                return true
            }
            i = number.end &+ 1
        }
        // Stopped at the start of element `i` (still `offset` when none was read).
        offset = i
        return false
    }
}
