import Foundation
import ZeroMQ

/// What a client of a daemon with CURVE needs (docs/OPERATIONS.md, Security): its own key pair, whose
/// public key the daemon's allow-list holds, and the daemon's public key.
///
/// Pass it to `LayoutClient`, `EventSubscriber` and `StatsClient`. Without it they speak plain ZeroMQ,
/// which a daemon with CURVE refuses (no reply comes).
public struct CurveCredentials: Sendable, Hashable {
    /// The client's key pair.
    public var clientKeys: CurveKeyPair
    /// The daemon's public key.
    public var serverKey: CurveKey

    public init(clientKeys: CurveKeyPair, serverKey: CurveKey) {
        self.clientKeys = clientKeys
        self.serverKey = serverKey
    }

    /// Reads the client's secret key from `secretKeyFile` (its public key follows from it) and the
    /// daemon's public key from `serverKeyFile`: files as `layoutctl keygen` writes them, the key in Z85
    /// on the first line that is not blank or a comment (`#`).
    ///
    /// - Throws: `ClientError.invalidKey` naming the file at fault.
    public init(secretKeyFile: String, serverKeyFile: String) throws(ClientError) {
        let secretKey = try Self.key(inFile: secretKeyFile)
        do {
            clientKeys = try CurveKeyPair(secretKey: secretKey)
        } catch {
            throw .invalidKey("\(secretKeyFile): no public key follows from it: \(error)")
        }
        serverKey = try Self.key(inFile: serverKeyFile)
    }

    /// The public key of `clientKeys` in Z85: with CURVE, every event topic starts with it.
    var topicPrefix: [UInt8] { Array(clientKeys.publicKey.z85.utf8) }

    /// Makes `socket` a CURVE client with these keys (before it connects).
    func apply(to socket: Socket) throws(ZeroMQError) {
        try socket.makeCurveClient(keys: clientKeys, serverKey: serverKey)
    }

    /// The first key in the file at `path`.
    static func key(inFile path: String) throws(ClientError) -> CurveKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidKey("\(path): cannot read the file")
        }
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            guard let word = line.split(whereSeparator: \.isWhitespace).first, !word.hasPrefix("#") else { continue }
            if let key = CurveKey(z85: word) { return key }
            throw .invalidKey("\(path): \"\(word.prefix(48))\" is not a key (40 characters of Z85)")
        }
        throw .invalidKey("\(path): no key in the file")
    }
}
