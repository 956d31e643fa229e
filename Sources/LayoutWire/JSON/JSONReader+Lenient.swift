extension JSONReader {
    /// Skips the value that starts at the next token by matching brackets and string quotes only, without
    /// checking what lies between: for readers that route a body and leave its validation to the decoder
    /// that runs later (the cluster broker). Several times faster than `skipValue` over a large numeric
    /// array. A body it misjudges is malformed, and the decoder rejects it whole wherever it is sent.
    mutating func skipValueLeniently() throws(WireError) {
        skipWhitespace()
        let opening = peek()
        guard opening == UInt8(ascii: "[") || opening == UInt8(ascii: "{") else {
            // Scalars are short: the strict skip costs nothing here.
            return try skipValue()
        }
        var depth = 0
        var index = offset
        let count = bytes.count
        guard let base = bytes.baseAddress else { throw unexpected("a JSON value") }
        while index < count {
            switch base.load(fromByteOffset: index, as: UInt8.self) {
            case UInt8(ascii: "\""):
                // To the closing quote, stepping over escaped characters.
                index += 1
                while index < count {
                    let byte = base.load(fromByteOffset: index, as: UInt8.self)
                    if byte == UInt8(ascii: "\\") {
                        index += 2
                    } else if byte == UInt8(ascii: "\"") {
                        break
                    } else {
                        index += 1
                    }
                }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 {
                    offset = index + 1
                    return
                }
            default:
                break
            }
            index += 1
        }
        offset = count
        throw unexpected("the end of an array or object")
    }
}
