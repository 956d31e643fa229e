import Foundation

/// A JSON object as `JSONSerialization` reads it, with typed accessors for the members replies carry.
///
/// Deliberately loose (`[String: Any]`, hence not `Sendable`): the client only builds and reads small
/// envelopes, and a caller that wants the full typed model decodes `Reply.body` with LayoutWire.
public struct AnyJSONObject {
    /// The members, as `JSONSerialization` produces and accepts them.
    public var dictionary: [String: Any]

    public init(_ dictionary: [String: Any] = [:]) {
        self.dictionary = dictionary
    }

    /// Parses `bytes`, which must hold one JSON object.
    public init(parsing bytes: [UInt8]) throws(ClientError) {
        guard let dictionary = JSONCoding.object(from: bytes) else {
            throw .malformedReply("not a JSON object: \(JSONCoding.preview(bytes))")
        }
        self.dictionary = dictionary
    }

    /// The member `key`, as `JSONSerialization` represents it.
    public subscript(key: String) -> Any? {
        get { dictionary[key] }
        set { dictionary[key] = newValue }
    }

    /// The names of the members.
    public var keys: [String] { Array(dictionary.keys) }

    /// Whether the object has no members.
    public var isEmpty: Bool { dictionary.isEmpty }

    /// The member `key` if it is a string.
    public func string(_ key: String) -> String? { dictionary[key] as? String }

    /// The member `key` if it is a number with an exact `Int` value.
    public func int(_ key: String) -> Int? { JSONCoding.int(dictionary[key]) }

    /// The member `key` if it is a number.
    public func double(_ key: String) -> Double? { JSONCoding.double(dictionary[key]) }

    /// The member `key` if it is `true` or `false`.
    public func bool(_ key: String) -> Bool? { JSONCoding.bool(dictionary[key]) }

    /// The member `key` if it is an object.
    public func object(_ key: String) -> AnyJSONObject? {
        (dictionary[key] as? [String: Any]).map(AnyJSONObject.init)
    }

    /// The member `key` if it is an array.
    public func array(_ key: String) -> [Any]? { dictionary[key] as? [Any] }

    /// The member `key` if it is an array of objects.
    public func objects(_ key: String) -> [AnyJSONObject]? {
        guard let array = dictionary[key] as? [Any] else { return nil }
        var objects: [AnyJSONObject] = []
        objects.reserveCapacity(array.count)
        for element in array {
            guard let dictionary = element as? [String: Any] else { return nil }
            objects.append(AnyJSONObject(dictionary))
        }
        return objects
    }

    /// The member `key` if it is a `{"width":…,"height":…}` object, such as `contentSize`.
    public func size(_ key: String) -> ContentSize? {
        guard let object = object(key), let width = object.double("width"), let height = object.double("height")
        else { return nil }
        return ContentSize(width: width, height: height)
    }

    /// The object as compact JSON text (`pretty`: indented, keys sorted).
    public func serialized(pretty: Bool = false) throws(ClientError) -> [UInt8] {
        try JSONCoding.bytes(of: dictionary, pretty: pretty)
    }
}

/// A `{"width":…,"height":…}` pair, such as a reply's `contentSize`.
public struct ContentSize: Sendable, Hashable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}
