import ZeroMQ

extension ConsoleSetup {
    /// The console of a process that bound `front`, `stats` and `events` with `configuration`; nil when
    /// `console.enabled` is false. With CURVE and a token, the gateway gets a key pair of its own, admitted
    /// as an admin; with CURVE and no token it gets none, since the console then answers only 401.
    public static func forProcess(
        configuration: ServerConfiguration, front: String, stats: String, events: String, access: AccessControl?
    ) throws -> ConsoleSetup? {
        guard configuration.console.isEnabled else { return nil }
        var curve: ConsoleEndpoints.Curve?
        if let access, configuration.console.token != nil {
            let keys = try CurveKeyPair.generate()
            access.admitConsole(keys.publicKey)
            curve = ConsoleEndpoints.Curve(clientKeys: keys, serverPublicKey: access.serverKeys.publicKey)
        }
        return ConsoleSetup(
            settings: configuration.console,
            endpoints: ConsoleEndpoints(front: front, stats: stats, events: events, curve: curve),
            isCurveOn: configuration.isCurveEnabled,
            maxMessageBytes: configuration.maxMessageBytes
        )
    }
}
