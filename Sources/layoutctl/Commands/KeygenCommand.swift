import ArgumentParser
import Foundation
import LayoutClient
import ZeroMQ

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a new CURVE key pair: PREFIX.key (secret, mode 600) and PREFIX.pub (public).",
        discussion: """
            For a client: add the line of PREFIX.pub, with a name, to the daemon's security.clientKeysFile, \
            and use --secret-key PREFIX.key. For the daemon: security.serverSecretKeyFile is PREFIX.key, and clients \
            take PREFIX.pub as --server-key. Keys are Z85 (40 characters), as zmq_curve_keypair makes them.
            """
    )

    @ParentCommand private var root: Layoutctl
    private var options: GlobalOptions { root.options }

    @Option(help: ArgumentHelp("Where to write: PREFIX.key and PREFIX.pub.", valueName: "prefix"))
    var out = "client"

    @Flag(help: "Replace existing files.")
    var force = false

    func run() throws {
        let secretPath = out + ".key", publicPath = out + ".pub"
        if !force {
            for path in [secretPath, publicPath] where FileManager.default.fileExists(atPath: path) {
                Console.printError("\(path) exists; --force replaces it")
                throw ExitCode(Failure.clientErrorStatus)
            }
        }
        let keys: CurveKeyPair
        do {
            keys = try CurveKeyPair.generate()
        } catch {
            Console.printError("cannot make a key pair: \(error)")
            throw ExitCode(Failure.clientErrorStatus)
        }
        let publicKey = keys.publicKey.z85
        let secret = "# layoutd CURVE secret key (Z85). Keep it private: whoever holds it is this peer.\n"
            + "# Public key: \(publicKey)\n\(keys.secretKey.z85)\n"
        try write(secret, to: secretPath, permissions: 0o600)
        try write(publicKey + "\n", to: publicPath, permissions: 0o644)
        if options.json {
            Console.print(#"{"publicKey":"\#(publicKey)","secretKeyFile":"\#(secretPath)","publicKeyFile":"\#(publicPath)"}"#)
        } else {
            Console.print("wrote \(secretPath) (secret, mode 600) and \(publicPath)")
            Console.print("public key: \(publicKey)")
        }
    }

    private func write(_ text: String, to path: String, permissions: Int) throws {
        // Replaced, not rewritten in place: a new file gets `permissions` from the start.
        try? FileManager.default.removeItem(atPath: path)
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: permissions]) else {
            Console.printError("cannot write \(path)")
            throw ExitCode(Failure.clientErrorStatus)
        }
    }
}
