/// Runs `body` with the bytes of `array`, keeping the typed error that the standard library's
/// `rethrows` wrappers would widen to `any Error`.
func withBytes<Result>(
    of array: [UInt8],
    _ body: (UnsafeRawBufferPointer) throws(ZeroMQError) -> Result
) throws(ZeroMQError) -> Result {
    try array.withUnsafeBytes { buffer in
        Swift.Result { () throws(ZeroMQError) in try body(buffer) }
    }.get()
}

/// Runs `body` with the UTF-8 bytes of `string`; see `withBytes(of:_:)`.
func withBytes<Result>(
    of string: String,
    _ body: (UnsafeRawBufferPointer) throws(ZeroMQError) -> Result
) throws(ZeroMQError) -> Result {
    var string = string
    return try string.withUTF8 { buffer in
        Swift.Result { () throws(ZeroMQError) in try body(UnsafeRawBufferPointer(buffer)) }
    }.get()
}
