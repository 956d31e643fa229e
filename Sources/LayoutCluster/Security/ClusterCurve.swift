import LayoutServer
import Logging
import ZeroMQ

/// CURVE on a cluster's broker: its client sockets are secured exactly as the single
/// daemon's (`AccessGate`), and its back ROUTER and events-in XSUB are CURVE servers with the same key
/// (`security.serverSecretKeyFile`), admitting only the admin keys of its allow-list
/// (`security.clientKeysFile`) through the same ZAP handler; a worker connects with a key pair of its own
/// and the broker's public key.
public enum ClusterCurve {
    /// The broker's keys and allow-list, with its ZAP handler started in `context` for its client
    /// sockets and its back and events-in sockets; nil without `security` configured. Call before any
    /// socket of `context` binds.
    public static func startBrokerAccess(
        configuration: ServerConfiguration, context: Context, stats: ServerStats, logger: Logger
    ) throws -> AccessControl? {
        guard let clientKeysFile = configuration.clientKeysFile,
            let access = try access(configuration: configuration, context: context, stats: stats, domains: ZAPHandler.domains + [ZAPDomain.back, ZAPDomain.eventsIn], logger: logger)
        else { return nil }
        logger.info("CURVE on: only listed clients are admitted, and only listed admin keys join as workers", metadata: [
            "serverPublicKey": "\(access.serverKeys.publicKey.z85)", "clientKeys": "\(access.summary.keys)", "admins": "\(access.summary.admins)",
        ])
        if access.summary.keys == 0 {
            logger.warning("the client keys file lists no key: every client and worker will be refused", metadata: ["file": "\(clientKeysFile)"])
        }
        return access
    }

    /// A cluster worker's direct endpoint (LayoutCluster, `cluster.direct`) with CURVE: the broker's own
    /// key and allow-list (`security.serverSecretKeyFile`, `security.clientKeysFile`, the same files as
    /// the broker's), with a ZAP handler for the front domain started in `context`, so a client meets the
    /// same keys, names and namespaces at a worker as at its broker. Nil without `security` configured.
    /// Call before any socket of `context` binds.
    public static func startDirectAccess(
        configuration: ServerConfiguration, context: Context, stats: ServerStats, logger: Logger
    ) throws -> AccessControl? {
        try access(configuration: configuration, context: context, stats: stats, domains: [ZAPDomain.front], logger: logger)
    }

    /// The keys and allow-list of `security`, with a ZAP handler for `domains` started in `context`; nil
    /// without `security` configured.
    private static func access(
        configuration: ServerConfiguration, context: Context, stats: ServerStats, domains: [String], logger: Logger
    ) throws -> AccessControl? {
        guard let secretKeyFile = configuration.serverSecretKeyFile, let clientKeysFile = configuration.clientKeysFile else { return nil }
        guard zeroMQSupportsCurve else {
            throw ServerError("security is configured, but this libzmq was built without CURVE (zmq_has(\"curve\") is false)")
        }
        let access = try AccessControl(serverSecretKeyPath: secretKeyFile, clientKeysPath: clientKeysFile, stats: stats, logger: logger)
        try ZAPHandler.start(context: context, access: access, domains: domains, logger: logger)
        return access
    }

    /// Makes the broker's back ROUTER a CURVE server admitted by `access`. Call before binding it.
    public static func secureBack(_ socket: Socket, with access: AccessControl) throws(ZeroMQError) {
        try AccessGate.secure(socket, domain: ZAPDomain.back, with: access)
    }

    /// Makes the broker's events-in XSUB a CURVE server admitted by `access`. Call before binding it.
    public static func secureEventsIn(_ socket: Socket, with access: AccessControl) throws(ZeroMQError) {
        try AccessGate.secure(socket, domain: ZAPDomain.eventsIn, with: access)
    }

    /// A worker's key pair from its secret key file (Z85, as `layoutctl keygen` writes it).
    public static func workerKeys(secretKeyFile path: String) throws(KeyFileError) -> CurveKeyPair {
        try KeyFiles.serverKeys(at: path)
    }

    /// The broker's public key from its `.pub` file.
    public static func brokerPublicKey(file path: String) throws(KeyFileError) -> CurveKey {
        try KeyFiles.publicKey(at: path)
    }
}
