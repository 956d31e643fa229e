import LayoutEngine
import LayoutWire

/// A job file laid out here, without a daemon, exactly as the daemon's `layout` op would lay it out.
enum JobFile {
    /// Decodes `job` (a job file's bytes: the members of a `layout` request without `op`) with the
    /// daemon's `RequestDecoder` and prepares it with the daemon's default limits.
    ///
    /// The job's members are sent as they are, followed by `"op":"layout"`: a later member wins in the
    /// decoder, so an `op` left in the file cannot turn the job into another request.
    static func prepare(_ job: [UInt8]) throws(WireError) -> PreparedLayout {
        let request = try RequestDecoder().decode(layoutRequestBody(job))
        guard case .layout(let layoutRequest) = request.operation else {
            throw WireError(.internal, "the job did not decode as a layout request")
        }
        do {
            return try PreparedLayout.prepare(layoutRequest.input)
        } catch {
            throw WireError(error)
        }
    }

    /// `job` with `"op":"layout"` added as its last member.
    static func layoutRequestBody(_ job: [UInt8]) throws(WireError) -> [UInt8] {
        func isWhitespace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
        }
        guard let first = job.firstIndex(where: { !isWhitespace($0) }),
              let last = job.lastIndex(where: { !isWhitespace($0) }),
              first < last, job[first] == UInt8(ascii: "{"), job[last] == UInt8(ascii: "}")
        else {
            throw WireError(.invalidRequest, "a job must be a JSON object")
        }
        let isEmpty = job[(first + 1)..<last].allSatisfy(isWhitespace)
        return Array(job[first..<last]) + Array((isEmpty ? "" : ",").utf8) + Array("\"op\":\"layout\"}".utf8)
    }
}
