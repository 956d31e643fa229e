import ZeroMQ

/// Runs a socket call, reporting its failure as a `ClientError`.
func transport<T>(_ body: () throws(ZeroMQError) -> T) throws(ClientError) -> T {
    do {
        return try body()
    } catch {
        throw .transport(error)
    }
}

/// `context`, or a new one for a client that was given none.
func makeContext(_ context: Context?) throws(ClientError) -> Context {
    if let context { return context }
    return try transport { () throws(ZeroMQError) in try Context() }
}
