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

    /// Elements selected by index paths or by kind are those a scan of every element picks, in layout order.
    static func checkSelection(on layout: PreparedLayout, _ selection: AttributeSelection?) {
        guard let selection else { return }
        let picks: (LayoutElement) -> Bool
        switch selection {
        case .all, .rect: return  // .rect: checkQueries
        case .items(let paths):
            let wanted = Set(paths)
            picks = { $0.kind == .cell && wanted.contains(ItemIndexPath(section: $0.section, item: $0.item)) }
        case .supplementary(let kind, let sections):
            let wanted = sections.map(Set.init)
            picks = { $0.kind == kind && (wanted?.contains($0.section) ?? true) }
        }
        var selected: [LayoutElement] = []
        layout.forEachElement(selectedBy: selection) { selected.append($0) }
        var scanned: [LayoutElement] = []
        layout.forEachElement { if picks($0) { scanned.append($0) } }
        check(selected == scanned, "\(selection): \(selected.count) elements selected, a scan picks \(scanned.count)")
    }

    /// A diff leaves the layout with the very sections it was sent.
    static func checkDiffResult(_ layout: PreparedLayout, sections: [Section]) {
        let result = layout.input.sections
        check(result.count == sections.count, "\(result.count) sections after a diff to \(sections.count)")
        for (index, (got, wanted)) in zip(result, sections).enumerated() {
            check(got.items.count == wanted.items.count, "section \(index): \(got.items.count) items after the diff, \(wanted.items.count) sent")
            check(got.headerHeight == wanted.headerHeight && got.footerHeight == wanted.footerHeight && got.parameters == wanted.parameters,
                  "section \(index): header, footer or parameters differ from the diff's")
            if !wanted.items.isEmpty { check(got.ids == wanted.ids, "section \(index): ids differ from the diff's") }
            for item in 0..<min(got.items.count, wanted.items.count) {
                check(got.items[item] == wanted.items[item], "section \(index) item \(item): \(got.items[item]) after the diff, \(wanted.items[item]) sent")
            }
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
