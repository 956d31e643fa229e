extension Socket {
    /// Makes this socket the server side of CURVE (`ZMQ_CURVE_SERVER`, `ZMQ_CURVE_SECRETKEY`). Call
    /// before binding; bind a ZAP handler in the same context first, or libzmq admits every client.
    public func makeCurveServer(secretKey: CurveKey) throws(ZeroMQError) {
        try set(.curveServer, true)
        try set(.curveSecretKey, secretKey)
    }

    /// Makes this socket a CURVE client of the server whose public key is `serverKey`, proving itself
    /// with `keys`. Call before connecting.
    public func makeCurveClient(keys: CurveKeyPair, serverKey: CurveKey) throws(ZeroMQError) {
        try set(.curvePublicKey, keys.publicKey)
        try set(.curveSecretKey, keys.secretKey)
        try set(.curveServerKey, serverKey)
    }
}
