import Foundation
import LayoutClient

/// Reads a file argument, `-` meaning standard input.
enum InputFile {
    static func bytes(_ path: String) throws(ClientError) -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .invalidInput("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// The JSON value in `path`.
    static func json(_ path: String) throws(ClientError) -> Any {
        let bytes = try bytes(path)
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
            throw .invalidInput("\(name(path)) is not valid JSON")
        }
        return value
    }

    /// The array of objects in `path`, given bare or as the member `key` of an object; also returns
    /// that object, whose other members may carry options (`ifVersion`).
    static func objects(_ path: String, key: String) throws(ClientError) -> (objects: [[String: Any]], container: [String: Any]) {
        let value = try json(path)
        let container = value as? [String: Any] ?? [:]
        guard let array = (value as? [Any]) ?? (container[key] as? [Any]) else {
            throw .invalidInput("\(name(path)) holds neither a JSON array nor an object whose \"\(key)\" is one")
        }
        var objects: [[String: Any]] = []
        for (index, element) in array.enumerated() {
            guard let object = element as? [String: Any] else {
                throw .invalidInput("\(key)[\(index)] in \(name(path)) is not a JSON object")
            }
            objects.append(object)
        }
        return (objects, container)
    }

    private static func name(_ path: String) -> String {
        path == "-" ? "standard input" : path
    }
}
