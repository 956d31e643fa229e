import LayoutTestKit
import LayoutEngine
import LayoutWire

/// The large `layout` job: a one-section mosaic in a phone-sized viewport, its items given by count or
/// with per-item `heights` (which mosaic validates and then ignores: its cells are fixed). The journal
/// bench sends the same bodies as `prepare`s under a key, and of other kinds (a waterfall, which the
/// heights do size).
struct JobInputs {
    enum BodyForm: String, CaseIterable {
        /// `"sections":[{"count":N}]`.
        case count
        /// `"sections":[{"heights":[…N numbers…]}]`, seeded heights 40–240 in steps of 0.5.
        case heights
        /// The same heights as a binary frame after the body: `"sections":[{"heights":{"frame":1}}]`.
        case binaryHeights
    }

    /// What the body asks for.
    enum Operation {
        /// A stateless `layout` job.
        case layout
        /// A `prepare` that keeps the layout under `key`.
        case prepare(key: String)
    }

    static let bounds = Size(width: 375, height: 812)
    static let requestID = "job"

    let items: Int
    let form: BodyForm
    let kind: LayoutKind
    private let heights: [Double]

    init(items: Int, form: BodyForm, kind: LayoutKind = .mosaic) {
        self.items = items
        self.form = form
        self.kind = kind
        switch form {
        case .count:
            heights = []
        case .heights, .binaryHeights:
            var random = SeededGenerator(seed: 0x10B5)
            heights = (0..<items).map { _ in 40 + Double(random.next() % 401) * 0.5 }
        }
    }

    /// The engine's input for the same job, built directly (not through the wire decoder), so the
    /// frames it yields check the daemon independently.
    var input: LayoutInput {
        let sizes = heights.isEmpty ? ItemSizes(count: items) : (ItemSizes(count: items, heights: heights) ?? ItemSizes(count: items))
        return LayoutInput(bounds: Self.bounds, parameters: .defaults(for: kind), sections: [Section(items: sizes)])
    }

    /// The request body, every frame asked for in `format`.
    func body(format: AttributesFormat, operation: Operation = .layout) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + heights.count * 8)
        switch operation {
        case .layout:
            writer.write(raw: #"{"v":1,"id":"job","op":"layout""#)
        case .prepare(let key):
            writer.write(raw: #"{"v":1,"id":"job","op":"prepare","layout":"#)
            writer.write(key)
        }
        writer.write(raw: #","bounds":{"width":375,"height":812},"spec":{"type":"#)
        writer.write(kind.rawValue)
        writer.write(raw: #"},"return":"all","format":"#)
        writer.write(format.rawValue)
        writer.write(raw: #","sections":[{"#)
        switch form {
        case .count:
            writer.write(raw: #""count":"#)
            writer.write(items)
        case .binaryHeights:
            writer.write(raw: #""heights":{"frame":1}"#)
        case .heights:
            writer.write(raw: #""heights":["#)
            for (index, height) in heights.enumerated() {
                if index > 0 { writer.write(byte: UInt8(ascii: ",")) }
                writer.write(height)
            }
            writer.write(byte: UInt8(ascii: "]"))
        }
        writer.write(raw: "}]}")
        return writer.finish()
    }

    /// The frames sent after the body: the heights as little-endian float64 for `binaryHeights`.
    var attachments: [[UInt8]] {
        guard form == .binaryHeights else { return [] }
        return [heights.withUnsafeBufferPointer { Array(UnsafeRawBufferPointer($0)) }]
    }
}
