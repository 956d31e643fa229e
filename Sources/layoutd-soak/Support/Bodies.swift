/// The request bodies the suite sends, with numeric ids so replies can be matched from their first bytes.
enum Bodies {
    static func ping(id: Int) -> String {
        #"{"v":1,"id":\#(id),"op":"ping"}"#
    }

    /// A mosaic of `count` items described by its count alone: a small body, a large layout.
    static func mosaic(id: Int, op: String = "prepare", key: String?, count: Int, width: Int = 375) -> String {
        let layout = key.map { #","layout":"\#($0)""# } ?? ""
        return #"{"v":1,"id":\#(id),"op":"\#(op)"\#(layout),"bounds":{"width":\#(width),"height":800},"spec":{"type":"mosaic"},"sections":[{"count":\#(count)}]}"#
    }

    /// A list of `count` items with explicit heights: a body of about 4 bytes per item.
    static func list(id: Int, op: String = "prepare", key: String?, count: Int) -> [UInt8] {
        let layout = key.map { #","layout":"\#($0)""# } ?? ""
        var body = Array(#"{"v":1,"id":\#(id),"op":"\#(op)"\#(layout),"bounds":{"width":375,"height":800},"spec":{"type":"list"},"sections":[{"heights":["#.utf8)
        body.reserveCapacity(body.count + count * 4 + 8)
        let heights: [[UInt8]] = ["44", "60", "32", "88"].map { Array($0.utf8) }
        for index in 0..<count {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += heights[index & 3]
        }
        body += Array("]}]}".utf8)
        return body
    }

    static func query(id: Int, key: String, y: Int, height: Int = 800) -> String {
        #"{"v":1,"id":\#(id),"op":"query","layout":"\#(key)","rect":{"x":0,"y":\#(y),"width":375,"height":\#(height)}}"#
    }

    static func insertFirst(id: Int, key: String) -> String {
        #"{"v":1,"id":\#(id),"op":"update","layout":"\#(key)","updates":[{"insert":[0,0],"item":{"height":30}}]}"#
    }

    static func deleteFirst(id: Int, key: String) -> String {
        #"{"v":1,"id":\#(id),"op":"update","layout":"\#(key)","updates":[{"delete":[0,0]}]}"#
    }
}
