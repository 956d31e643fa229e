/// Who sent a request, as the I/O thread learned it from the connection: the ZAP handler admitted the
/// connection's CURVE key, and the key's entry in the allow-list says whose namespace it is.
public struct Caller: Sendable, Hashable {
    /// The namespace the caller's layouts are kept in: "" without CURVE (one namespace for everyone,
    /// as before security existed); with CURVE, the name its key is listed under, or the key itself
    /// (Z85) when it has no name.
    public var namespace: String
    /// An admin reads every namespace: `list` shows all of them, `query` takes a `namespace`.
    public var isAdmin: Bool

    public init(namespace: String, isAdmin: Bool) {
        self.namespace = namespace
        self.isAdmin = isAdmin
    }

    /// Every request of a daemon without CURVE.
    public static let anonymous = Caller(namespace: "", isAdmin: false)

    /// Whether the caller may read layouts of `namespace`.
    func mayRead(_ namespace: String) -> Bool {
        isAdmin || namespace == self.namespace
    }
}
