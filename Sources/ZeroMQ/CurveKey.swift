/// A CURVE key, public or secret: 32 bytes, written as 40 characters of Z85 (ZeroMQ RFC 32).
///
/// A value of fixed size (no heap storage), so that looking one up in a dictionary costs no
/// allocation. Its `description` never shows the key, so that a secret key logged by mistake stays
/// secret; read `z85` to print a public key.
public struct CurveKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes, in order.
    private let storage: SIMD4<UInt64>

    /// The key of these 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        var storage = SIMD4<UInt64>()
        withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: bytes) }
        self.storage = storage
    }

    /// The key written as `z85`: 40 characters of the Z85 alphabet; nil for anything else.
    public init?(z85: some StringProtocol) {
        guard z85.utf8.count == 40, let bytes = LibZMQ.z85Decode(String(z85)) else { return nil }
        self.init(bytes: bytes)
    }

    /// The 32 bytes.
    public var bytes: [UInt8] {
        withUnsafeBytes(of: storage) { Array($0) }
    }

    /// The key as 40 characters of Z85, the form key files and `zmq_curve_keypair` use.
    public var z85: String {
        // 32 bytes always encode: the count is a multiple of 4.
        LibZMQ.z85Encode(bytes) ?? ""
    }

    public var description: String { "CurveKey(…)" }
}

/// A CURVE key pair: the public key peers are told, the secret key that stays with its owner.
public struct CurveKeyPair: Sendable, Hashable {
    public let publicKey: CurveKey
    public let secretKey: CurveKey

    /// A fresh random key pair (`zmq_curve_keypair`).
    ///
    /// - Throws: `ZeroMQError.Code.notSupported` when libzmq was built without CURVE.
    public static func generate() throws(ZeroMQError) -> CurveKeyPair {
        let pair = try LibZMQ.curveKeyPair()
        guard let publicKey = CurveKey(z85: pair.publicKey), let secretKey = CurveKey(z85: pair.secretKey) else {
            throw ZeroMQError(code: .invalidArgument, operation: "zmq_curve_keypair")
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// The pair of `secretKey`, its public key derived from it (`zmq_curve_public`): a key file need
    /// only hold the secret key.
    public init(secretKey: CurveKey) throws(ZeroMQError) {
        let derived = try LibZMQ.curvePublicKey(secretKey: secretKey.z85)
        guard let publicKey = CurveKey(z85: derived) else {
            throw ZeroMQError(code: .invalidArgument, operation: "zmq_curve_public")
        }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    private init(publicKey: CurveKey, secretKey: CurveKey) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}

/// Z85, ZeroMQ's printable encoding of binary data (RFC 32): 5 characters for every 4 bytes.
public enum Z85 {
    /// `bytes` as Z85; nil unless the count is a multiple of 4.
    public static func encode(_ bytes: [UInt8]) -> String? {
        LibZMQ.z85Encode(bytes)
    }

    /// The bytes `text` encodes; nil unless its length is a positive multiple of 5 and every character
    /// is in the Z85 alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        LibZMQ.z85Decode(text)
    }
}

/// Whether the linked libzmq can do CURVE (`zmq_has("curve")`: built with libsodium or tweetnacl).
public var zeroMQSupportsCurve: Bool {
    LibZMQ.has("curve")
}
