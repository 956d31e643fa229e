import LayoutEngine

/// An event for the XPUB socket: two frames, topic then JSON body.
public struct WireEvent: Hashable, Sendable {
    public var topic: [UInt8]
    public var body: [UInt8]

    public init(topic: [UInt8], body: [UInt8]) {
        self.topic = topic
        self.body = body
    }
}

/// Why a kept layout was invalidated.
public enum InvalidationReason: String, Hashable, Sendable, CaseIterable {
    /// Its bounds changed size.
    case bounds
    /// A `prepare` replaced it.
    case replaced
    /// A `drop` removed it.
    case dropped
    /// The store's memory bound pushed it out.
    case evicted
    /// A cluster lost it: the worker keeping it died and the broker no longer had its recipe to rebuild
    /// it elsewhere. It is no longer kept.
    case lost
}

/// A member of a `batch` event already encoded by the batch-update code: `name` and its JSON value.
public struct EncodedMember: Hashable, Sendable {
    public var name: String
    /// One complete JSON value.
    public var json: [UInt8]

    public init(name: String, json: [UInt8]) {
        self.name = name
        self.json = json
    }
}

/// Events (PROTOCOL.md, Events).
public enum EventEncoder {
    /// Topic `invalidated:<layout>`, body
    /// `{"event":"invalidated","layout":…,"version":…,"reason":…,"contentSize":…}`.
    public static func invalidated(layout: String, version: Int, reason: InvalidationReason, contentSize: Size) -> WireEvent {
        var writer = JSONWriter(capacity: 160 + layout.utf8.count)
        writer.write(raw: "{\"event\":\"invalidated\",\"layout\":")
        writer.write(layout)
        writer.write(raw: ",\"version\":")
        writer.write(version)
        writer.write(raw: ",\"reason\":")
        writer.write(reason.rawValue)
        writer.write(raw: ",\"contentSize\":")
        writer.write(contentSize)
        writer.write(byte: UInt8(ascii: "}"))
        return WireEvent(topic: Array("invalidated:\(layout)".utf8), body: writer.finish())
    }

    /// Topic `batch:<layout>`, body `{"event":"batch","layout":…,"version":…,<members>,"contentSize":…}`
    /// where `members` (`deletes`, `inserts`, `moves`, `reloads`, `sections`) come pre-encoded.
    public static func batch(layout: String, version: Int, members: [EncodedMember], contentSize: Size) -> WireEvent {
        var writer = JSONWriter(capacity: 160 + layout.utf8.count + members.reduce(0) { $0 + $1.name.utf8.count + $1.json.count + 4 })
        writer.write(raw: "{\"event\":\"batch\",\"layout\":")
        writer.write(layout)
        writer.write(raw: ",\"version\":")
        writer.write(version)
        writer.write(members: members)
        writer.write(raw: ",\"contentSize\":")
        writer.write(contentSize)
        writer.write(byte: UInt8(ascii: "}"))
        return WireEvent(topic: Array("batch:\(layout)".utf8), body: writer.finish())
    }
}

extension JSONWriter {
    /// `,"name":value` for each pre-encoded member, continuing an object already opened.
    public mutating func write(members: [EncodedMember]) {
        for member in members {
            write(byte: UInt8(ascii: ","))
            write(member.name)
            write(byte: UInt8(ascii: ":"))
            write(raw: member.json)
        }
    }
}
