internal import CZeroMQ

/// The messaging pattern of a socket (libzmq's `ZMQ_PAIR` ... `ZMQ_STREAM`; draft types are left out).
public enum SocketType: Sendable, Hashable, CaseIterable {
    case pair, pub, sub, req, rep, dealer, router, pull, push, xpub, xsub, stream

    var rawValue: Int32 {
        switch self {
        case .pair: ZMQ_PAIR
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .dealer: ZMQ_DEALER
        case .router: ZMQ_ROUTER
        case .pull: ZMQ_PULL
        case .push: ZMQ_PUSH
        case .xpub: ZMQ_XPUB
        case .xsub: ZMQ_XSUB
        case .stream: ZMQ_STREAM
        }
    }
}
