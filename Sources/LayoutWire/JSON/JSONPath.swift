/// Where a value sits in a request, e.g. `sections[2].items[17].height`.
///
/// Built only along control fields and rendered only when an error is thrown: bulk loops keep their
/// index in a local and name it in the path only on the error path.
struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    private(set) var components: [Component] = []

    static let root = JSONPath()

    func appending(_ key: String) -> JSONPath {
        var path = self
        path.components.append(.key(key))
        return path
    }

    func appending(_ index: Int) -> JSONPath {
        var path = self
        path.components.append(.index(index))
        return path
    }

    static func / (path: JSONPath, key: String) -> JSONPath { path.appending(key) }
    static func / (path: JSONPath, index: Int) -> JSONPath { path.appending(index) }

    var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// The path as an error reports it: nil for the whole body.
    var fieldPath: String? { components.isEmpty ? nil : description }
}
