import Configuration

extension ConfigurationLoader {
    /// `security.serverSecretKeyFile` and `security.clientKeysFile`: both or neither (an empty value is
    /// none). Only the paths are read here; the files are read, and checked, when the daemon starts.
    static func readSecurity(_ config: ConfigReader, into c: inout ServerConfiguration) throws {
        let secret = config.string(forKey: "security.serverSecretKeyFile", default: "")
        let clients = config.string(forKey: "security.clientKeysFile", default: "")
        switch (secret.isEmpty, clients.isEmpty) {
        case (true, true):
            break
        case (false, true):
            throw ConfigurationError(key: "security.clientKeysFile", message: "must be given with security.serverSecretKeyFile: CURVE needs the clients' keys")
        case (true, false):
            throw ConfigurationError(key: "security.serverSecretKeyFile", message: "must be given with security.clientKeysFile: CURVE needs the server's secret key")
        case (false, false):
            c.serverSecretKeyFile = secret
            c.clientKeysFile = clients
        }
    }
}
