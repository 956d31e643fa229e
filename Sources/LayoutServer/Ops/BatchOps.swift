import LayoutEngine
import LayoutWire

/// `update` and `diff`: batch changes to a kept layout.
struct BatchOps {
    let handler: RequestHandler

    func update(id: RequestID?, body: JSONObject) throws(WireError) -> [UInt8] {
        throw WireError(.invalidRequest, "update is not available in this build", path: "op")
    }

    func diff(id: RequestID?, body: JSONObject) throws(WireError) -> [UInt8] {
        throw WireError(.invalidRequest, "diff is not available in this build", path: "op")
    }
}
