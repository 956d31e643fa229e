/// The web console's settings (`console.*`): what the HTTP gateway lets through and how much of it.
public struct ConsoleSettings: Sendable, Hashable {
    /// Serve the console and its API on the HTTP listener (`console.enabled`).
    public var isEnabled = true
    /// Let changes (`prepare`, `bounds`, `update`, `diff`, `drop`) through the gateway
    /// (`console.allowChanges`); by default it is read-only.
    public var allowsChanges = false
    /// The bearer token the API asks for (`console.token`); nil: none. With CURVE on and no token, the
    /// console and its API are off (401).
    public var token: String?
    /// Items a stateless `layout` sent through the gateway may have in all (`console.maxItems`): the
    /// playground's cap, smaller than the front's `limits.maxItems`.
    public var maxItems = 10_000
    /// Largest HTTP request body the gateway reads, in bytes (`console.maxBodyBytes`); a larger one is
    /// answered 413 and its connection closed. At most `limits.maxMessageBytes` in effect.
    public var maxBodyBytes = 1 << 20
    /// How long a request may take from its first byte to its end, and how long the gateway waits for
    /// the front's reply, in milliseconds (`console.timeoutMillis`).
    public var timeoutMillis = 10_000
    /// Event streams (`/api/events`) open at once (`console.maxStreams`).
    public var maxStreams = 16

    public init() {}

    var timeout: Duration { .milliseconds(timeoutMillis) }
}
