import Logging
import ServiceLifecycle
import UnixSignals
import ZeroMQ

extension AccessControl {
    /// Rereads `security.clientKeysFile` (what SIGHUP does), logging the outcome: a file that is not
    /// valid is reported and changes nothing. False when the file was refused.
    @discardableResult
    public func reload(logging logger: Logger) -> Bool {
        do {
            let summary = try reload()
            logger.notice("client keys reloaded", metadata: [
                "file": "\(clientKeysPath)", "keys": "\(summary.keys)", "admins": "\(summary.admins)", "namespaces": "\(summary.namespaces)",
            ])
            return true
        } catch {
            logger.error("client keys not reloaded: the file is not valid; the previous list stays", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Reloads the client keys on every SIGHUP of `hangUps` until the task is cancelled.
    public func reload(on hangUps: UnixSignalsSequence, logger: Logger) async {
        for await _ in hangUps {
            reload(logging: logger)
        }
    }
}

extension RunningNode {
    /// Rereads `security.clientKeysFile` (what SIGHUP does), logging the outcome: a file that is not
    /// valid is reported and changes nothing. False when CURVE is off or the file was refused.
    @discardableResult
    public func reloadClientKeys(logger: Logger) -> Bool {
        guard let access else {
            logger.notice("SIGHUP: CURVE is off, no client keys to reload")
            return false
        }
        return access.reload(logging: logger)
    }

    /// Serves until the node stops: a graceful shutdown of the service (SIGTERM, SIGINT) asks it to
    /// drain; meanwhile, when `hangUps` traps SIGHUP, each one rereads the client keys.
    public func serveUntilStopped(reloadingOn hangUps: UnixSignalsSequence?, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            if let hangUps, let access {
                group.addTask { await access.reload(on: hangUps, logger: logger) }
            }
            await withGracefulShutdownHandler {
                await waitUntilStopped()
            } onGracefulShutdown: {
                self.requestStop()
            }
            group.cancelAll()
        }
    }
}

extension LayoutDaemon {
    /// The access control CURVE needs, read and checked from the key files; nil without CURVE. Also
    /// warns loudly when a daemon without CURVE listens beyond this machine.
    func makeAccessControl(stats: ServerStats) throws -> AccessControl? {
        guard let secretKeyFile = configuration.serverSecretKeyFile, let clientKeysFile = configuration.clientKeysFile else {
            let reachable = Exposure.reachableEndpoints(of: configuration)
            if !reachable.isEmpty {
                logger.warning(
                    "SECURITY WARNING: layoutd listens beyond this machine WITHOUT CURVE: anyone who can connect can read, replace and drop every layout. Set security.serverSecretKeyFile and security.clientKeysFile (docs/OPERATIONS.md, Security), or bind 127.0.0.1.",
                    metadata: ["endpoints": "\(reachable.joined(separator: " "))"]
                )
            }
            return nil
        }
        guard zeroMQSupportsCurve else {
            throw ServerError("security is configured, but this libzmq was built without CURVE (zmq_has(\"curve\") is false)")
        }
        let access = try AccessControl(serverSecretKeyPath: secretKeyFile, clientKeysPath: clientKeysFile, stats: stats, logger: logger)
        let summary = access.summary
        logger.info("CURVE on: only listed clients are admitted", metadata: [
            "serverPublicKey": "\(access.serverKeys.publicKey.z85)", "clientKeys": "\(summary.keys)", "admins": "\(summary.admins)",
        ])
        if summary.keys == 0 {
            logger.warning("the client keys file lists no key: every client will be refused", metadata: ["file": "\(clientKeysFile)"])
        }
        return access
    }
}
