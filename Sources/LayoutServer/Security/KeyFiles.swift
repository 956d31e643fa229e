import Foundation
import ZeroMQ

/// Reading the daemon's key files.
package enum KeyFiles {
    /// The server's key pair from `security.serverSecretKeyFile`: the first line that is not blank or a
    /// comment holds the secret key in Z85 (as `layoutctl keygen` writes it); the public key is derived.
    package static func serverKeys(at path: String) throws(KeyFileError) -> CurveKeyPair {
        let text = try contents(of: path)
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let word = line.split(whereSeparator: \.isWhitespace).first
            guard let word, !word.hasPrefix("#") else { continue }
            guard let secretKey = CurveKey(z85: word) else {
                throw KeyFileError(path: path, line: index + 1, message: "not a secret key (40 characters of Z85)")
            }
            do {
                return try CurveKeyPair(secretKey: secretKey)
            } catch {
                throw KeyFileError(path: path, line: index + 1, message: "no public key follows from it: \(error)")
            }
        }
        throw KeyFileError(path: path, message: "no secret key in the file")
    }

    /// A public key from a file whose first line that is not blank or a comment holds it in Z85 (as
    /// `layoutctl keygen` writes the `.pub` file).
    package static func publicKey(at path: String) throws(KeyFileError) -> CurveKey {
        let text = try contents(of: path)
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let word = line.split(whereSeparator: \.isWhitespace).first
            guard let word, !word.hasPrefix("#") else { continue }
            guard let key = CurveKey(z85: word) else {
                throw KeyFileError(path: path, line: index + 1, message: "not a public key (40 characters of Z85)")
            }
            return key
        }
        throw KeyFileError(path: path, message: "no public key in the file")
    }

    /// The allow-list from `security.clientKeysFile`.
    static func clientKeys(at path: String) throws(KeyFileError) -> ClientKeyList {
        try ClientKeyList(parsing: contents(of: path), path: path)
    }

    /// Whether users other than the owner may read the file at `path` (a secret key should not be).
    static func isReadableByOthers(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let permissions = attributes[.posixPermissions] as? NSNumber else { return false }
        return permissions.intValue & 0o077 != 0
    }

    private static func contents(of path: String) throws(KeyFileError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyFileError(path: path, message: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeyFileError(path: path, message: "not UTF-8 text")
        }
        return text
    }
}
