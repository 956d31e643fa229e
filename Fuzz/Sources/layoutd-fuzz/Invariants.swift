import Foundation
import LayoutEngine
import LayoutWire

/// What must hold for every input; a broken one aborts, which libFuzzer reports as a crash with the input.
enum Invariants {
    /// Replies larger than this are not parsed back: the fuzzer should spend its time on new inputs.
    static let maxCheckedReplyBytes = 1 << 20

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("invariant broken: \(message)\n".utf8))
        abort()
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    /// A reply or event must be one valid JSON text in UTF-8 (escapes, numbers).
    static func checkJSON(_ bytes: [UInt8], what: String) {
        guard bytes.count <= maxCheckedReplyBytes else { return }
        check(StrictJSON.isValid(bytes), "\(what) is not valid JSON: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
    }

    /// A body the decoder accepted must be strict JSON (the decoder promises `invalid_json` otherwise).
    static func checkStrictJSON(_ body: UnsafeRawBufferPointer) {
        check(StrictJSON.isValid(body), "a body that is not strict JSON decoded: \(String(decoding: body.prefix(300), as: UTF8.self))")
    }

    /// Every frame of a prepared layout is finite with a non-negative size (LAYOUTS.md, OPERATIONS.md).
    static func checkFrames(of layout: PreparedLayout) {
        let size = layout.contentSize
        check(size.width.isFinite && size.height.isFinite && size.width >= 0 && size.height >= 0, "content size \(size)")
        var count = 0
        layout.forEachElement { element in
            let frame = element.frame
            check(frame.x.isFinite && frame.y.isFinite && frame.width.isFinite && frame.height.isFinite, "a frame that is not finite: \(element)")
            check(frame.width >= 0 && frame.height >= 0, "a frame of negative size: \(element)")
            count += 1
        }
        check(count == layout.elementCount, "\(count) elements listed, \(layout.elementCount) counted")
    }

    /// A rect query answers what a scan of every element answers, for the request's rect and a few more.
    static func checkQueries(on layout: PreparedLayout, selection: AttributeSelection?) {
        let size = layout.contentSize
        var rects = [
            Rect(x: 0, y: 0, width: size.width, height: size.height),
            Rect(x: 0, y: size.height / 3, width: size.width, height: size.height / 3),
            Rect(x: size.width / 2, y: size.height / 2, width: 1, height: 1),
            Rect(x: -10, y: -10, width: 20, height: 20),
        ]
        if case .rect(let rect)? = selection { rects.append(rect) }
        for rect in rects {
            let indexed = layout.elements(in: rect)
            let scanned = layout.elementsByScanning(in: rect)
            check(indexed == scanned, "rect \(rect): the index finds \(indexed.count) elements, a scan \(scanned.count)")
        }
    }

    /// An incremental change must give the very frames a full prepare gives (bit for bit).
    static func checkIdentical(_ changed: PreparedLayout, _ full: PreparedLayout) {
        check(bits(changed.contentSize) == bits(full.contentSize), "content size \(changed.contentSize) after the change, \(full.contentSize) prepared in full")
        check(changed.sectionTops.map(\.bitPattern) == full.sectionTops.map(\.bitPattern), "section tops differ from a full prepare")
        var changedElements: [LayoutElement] = []
        changed.forEachElement { changedElements.append($0) }
        var index = 0
        full.forEachElement { element in
            check(index < changedElements.count, "a full prepare has more elements than the change")
            let other = changedElements[index]
            check(other.kind == element.kind && other.section == element.section && other.item == element.item && bits(other.frame) == bits(element.frame),
                  "element \(index): \(other) after the change, \(element) prepared in full")
            index += 1
        }
        check(index == changedElements.count, "the change has more elements than a full prepare")
    }

    private static func bits(_ size: Size) -> [UInt64] { [size.width.bitPattern, size.height.bitPattern] }
    private static func bits(_ rect: Rect) -> [UInt64] { [rect.x.bitPattern, rect.y.bitPattern, rect.width.bitPattern, rect.height.bitPattern] }
}
