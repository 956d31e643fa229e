/// The confirmation of a subscription (docs/PROTOCOL.md §7, "Knowing a subscription is in effect").
///
/// Why: a SUB socket's subscriptions reach the publisher asynchronously, so an event published right
/// after a client subscribed may be lost, and nothing tells the client when it is safe to act. ZeroMQ
/// delivers one connection's subscriptions in order, and an XPUB applies each as it is read; so a
/// subscription to `subscribed:<token>`, made after the real ones and answered with an event on that
/// topic, tells the subscriber that everything it subscribed to before is in effect.
public enum SubscriptionConfirmation {
    /// The topic prefix a confirming subscription starts with.
    public static let topicPrefix: [UInt8] = Array("subscribed:".utf8)

    /// The token of a subscription to `subscribed:<token>`, nil for any other topic. A token is 8 to 64
    /// characters of `A-Z a-z 0-9 _ -`: short enough to bound what one subscription makes the publisher
    /// send, and safe to echo in JSON as it is.
    public static func token(inTopic topic: some Collection<UInt8>) -> [UInt8]? {
        guard topic.starts(with: topicPrefix) else { return nil }
        let token = Array(topic.dropFirst(topicPrefix.count))
        guard (8...64).contains(token.count), token.allSatisfy(isTokenByte) else { return nil }
        return token
    }

    /// The event that confirms the subscription `topic` (as the subscriber will receive it: with CURVE,
    /// behind its key) carrying `token`: `{"event":"subscribed","token":"<token>"}`.
    public static func event(topic: [UInt8], token: [UInt8]) -> WireEvent {
        WireEvent(topic: topic, body: Array(#"{"event":"subscribed","token":""#.utf8) + token + Array(#""}"#.utf8))
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
