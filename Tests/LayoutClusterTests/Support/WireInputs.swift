import Foundation
import LayoutEngine
import LayoutTestKit

/// Random request bodies as a client writes them: `prepare` inputs of every layout type (every form of a
/// section, every kind of id, per-section params, numbers with long fractions) and changes that fit the
/// layout as it stands (`update`, `bounds`, `diff`). Values stay where every layout accepts them.
struct WireInputs {
    private var random: SeededGenerator
    private var nextID = 0

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    // MARK: Random values

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[int(0...(values.count - 1))] }

    /// A length in `range` whose decimal form is usually long (thirds, sevenths), sometimes whole, now and
    /// then a negative zero (which `>= 0` accepts).
    mutating func length(_ range: ClosedRange<Int>) -> String {
        if range.lowerBound == 0, chance(0.03) { return "-0" }
        let whole = Double(int(range))
        switch int(0...3) {
        case 0: return number(whole)
        case 1: return number(min(Double(range.upperBound), whole + Double(int(0...2)) / 3))
        case 2: return number(min(Double(range.upperBound), whole + 1.0 / 7))
        default: return number(min(Double(range.upperBound), whole + 0.1))
        }
    }

    /// A JSON number for `value` (Swift's shortest round-trip form; `1e-07` is valid JSON).
    func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    func string(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }

    /// An id: an integer (some of them negative or past 2^53) or a string needing escapes now and then.
    mutating func id() -> String {
        nextID += 1
        switch int(0...5) {
        case 0: return String(nextID)
        case 1: return String(-nextID)
        case 2: return String(9_007_199_254_740_993 + nextID)
        case 3: return string("q\"\\\(nextID)\n")
        case 4: return string("é-\(nextID)-日本")
        default: return string("id\(nextID)")
        }
    }

    mutating func insets(_ range: ClosedRange<Int>) -> String {
        switch int(0...2) {
        case 0: return length(range)
        case 1: return #"{"left":\#(length(range)),"top":\#(length(range))}"#
        default: return #"{"top":\#(length(range)),"left":\#(length(range)),"bottom":\#(length(range)),"right":\#(length(range))}"#
        }
    }

    // MARK: Specs

    /// `spec` members after `type`, several of them set, for a content width of at least 260.
    mutating func parameters(_ kind: LayoutKind) -> [String] {
        var members: [String] = []
        switch kind {
        case .columnFlow:
            members = [#""minColumnWidth":\#(length(60...200))"#, #""cellHeight":\#(length(10...90))"#,
                       #""margins":\#(insets(0...12))"#, #""interitemSpacing":\#(length(0...12))"#, #""lineSpacing":\#(length(0...12))"#]
        case .mosaic:
            members = [#""segmentHeight":\#(length(20...240))"#, #""spacing":\#(length(0...3))"#]
        case .waterfall:
            members = [#""columns":\#(int(1...4))"#, #""cellPadding":\#(length(0...6))"#, #""itemHeight":\#(length(10...150))"#,
                       #""columnSpacing":\#(length(0...8))"#, #""interitemSpacing":\#(length(0...20))"#,
                       #""sectionInsets":\#(insets(0...12))"#, #""tieBreak":"\#(pick(["first", "last"]))""#,
                       #""columnWidth":\#(chance(0.3) ? length(20...50) : "null")"#]
        case .list:
            members = [#""itemHeight":\#(length(10...80))"#, #""spacing":\#(length(0...10))"#, #""sectionInsets":\#(insets(0...12))"#,
                       #""insetSupplementaryViews":\#(chance(0.5))"#]
        case .columns:
            members = [#""columnCount":\#(int(0...4))"#, #""columnSpacing":\#(length(0...10))"#, #""interitemSpacing":\#(length(0...10))"#,
                       #""itemHeight":\#(length(10...80))"#, #""sectionInsets":\#(insets(2...12))"#,
                       #""insetSupplementaryViews":\#(chance(0.5))"#, #""placement":"\#(pick(["leftToRight", "rightToLeft", "shortestFirst"]))""#]
        case .flow:
            members = [#""interitemSpacing":\#(length(0...10))"#, #""interspanSpacing":\#(chance(0.5) ? length(0...12) : "null")"#,
                       #""spanGroupSpacingBefore":\#(chance(0.5) ? length(0...12) : "null")"#,
                       #""spanGroupSpacingAfter":\#(length(0...12))"#, #""defaultItemSize":{"width":\#(length(20...90)),"height":\#(length(20...90))}"#,
                       #""sectionInsets":\#(insets(0...12))"#, #""rowTransform":"\#(pick(["none", "center", "fill"]))""#,
                       #""fillMaxScale":\#(chance(0.5) ? "0" : length(1...3))"#]
        case .justified:
            members = [#""targetRowHeight":\#(length(60...300))"#, #""targetRowHeightTolerance":\#(pick(["0", "0.1", "0.25", "0.5"]))"#,
                       #""boxSpacing":\#(chance(0.5) ? length(0...10) : #"{"horizontal":\#(length(0...10)),"vertical":\#(length(0...10))}"#)"#,
                       #""maxNumRows":\#(chance(0.3) ? String(int(1...6)) : "null")"#,
                       #""forceAspectRatio":\#(chance(0.2) ? length(1...2) : "false")"#, #""showWidows":\#(chance(0.7))"#,
                       #""fullWidthBreakoutRowCadence":\#(chance(0.3) ? String(int(1...4)) : "false")"#,
                       #""widowLayoutStyle":"\#(pick(["left", "justify", "center"]))""#, #""sectionInsets":\#(insets(0...12))"#]
        }
        members.append(#""header":\#(chance(0.5) ? length(0...40) : "0")"#)
        members.append(#""footer":\#(chance(0.5) ? length(0...30) : "0")"#)
        return members.filter { _ in chance(0.7) }
    }

    // MARK: Items and sections

    /// An item object's members (sizing and, when `withID`, an id).
    mutating func item(_ kind: LayoutKind, withID: Bool) -> String {
        var members: [String] = []
        if withID { members.append(#""id":\#(id())"#) }
        switch kind {
        case .flow:
            if chance(0.5) { members.append(#""width":\#(length(10...200))"#) }
            if chance(0.5) { members.append(#""height":\#(length(0...120))"#) }
            if chance(0.15) { members.append(#""span":true"#) }
        case .justified:
            if chance(0.4) { members.append(#""aspectRatio":\#(length(1...3))"#) } else if chance(0.5) {
                members.append(#""width":\#(length(10...200))"#)
                members.append(#""height":\#(length(10...200))"#)
            }
        default:
            if chance(0.5) { members.append(#""height":\#(length(0...120))"#) }
            if chance(0.4) { members.append(#""aspectRatio":\#(length(1...3))"#) }
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A section object in one of its three forms, `count` items.
    mutating func section(_ kind: LayoutKind, count: Int, ids: Bool) -> String {
        var members: [String] = []
        switch int(0...2) {
        case 0:
            members.append(#""count":\#(count)"#)
            if ids { members.append(#""ids":[\#((0..<count).map { _ in id() }.joined(separator: ","))]"#) }
        case 1:
            members.append(#""items":[\#((0..<count).map { _ in item(kind, withID: ids) }.joined(separator: ","))]"#)
        default:
            let columns = kind == .flow ? ["heights", "widths"] : kind == .justified ? ["aspectRatios"] : ["heights", "aspectRatios"]
            for column in columns where chance(0.7) {
                let range = column == "aspectRatios" ? 1...3 : 0...120
                members.append(#""\#(column)":[\#((0..<count).map { _ in chance(0.25) ? "null" : length(range) }.joined(separator: ","))]"#)
            }
            if kind == .flow, chance(0.4) { members.append(#""spans":[\#((0..<count).map { _ in String(chance(0.2)) }.joined(separator: ","))]"#) }
            if ids { members.append(#""ids":[\#((0..<count).map { _ in id() }.joined(separator: ","))]"#) }
            members.append(#""count":\#(count)"#)
        }
        if chance(0.3) { members.append(#""header":\#(chance(0.2) ? "null" : length(0...40))"#) }
        if chance(0.3) { members.append(#""footer":\#(length(0...30))"#) }
        if chance(0.3) {
            let params = (chance(0.5) ? [#""type":"\#(kind.rawValue)""#] : []) + parameters(kind)
            members.append(#""params":{\#(params.joined(separator: ","))}"#)
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A `prepare` of `layout`.
    mutating func prepare(_ kind: LayoutKind, layout: String) -> String {
        let sections = (0..<int(1...4)).map { _ in section(kind, count: chance(0.1) ? 0 : int(1...30), ids: chance(0.5)) }
        var members = [#""op":"prepare""#, #""layout":\#(string(layout))"#, #""bounds":{"width":\#(length(320...700)),"height":\#(length(300...900))}"#,
                       #""spec":{"type":"\#(kind.rawValue)"\#(parameters(kind).map { "," + $0 }.joined())}"#,
                       #""sections":[\#(sections.joined(separator: ","))]"#]
        if chance(0.4) { members.append(#""contentInsets":{"left":\#(length(0...20)),"right":\#(length(0...20))}"#) }
        if chance(0.4) { members.append(#""decorations":{"sectionBackground":\#(chance(0.5))}"#) }
        if chance(0.5) { members.append(#""layoutDirection":"\#(pick(["leftToRight", "rightToLeft"]))""#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A change that fits a layout of `input`: most often an `update` of one or two operations, else a
    /// `bounds` with another size, else (when every non-empty section has ids) a `diff`.
    mutating func change(to input: LayoutInput, layout: String) -> String {
        let kind = input.parameters.kind
        let name = string(layout)
        let roll = int(0...9)
        if roll == 0 {
            return #"{"op":"bounds","layout":\#(name),"bounds":{"x":5,"y":\#(int(0...900)),"width":\#(length(320...700)),"height":\#(length(300...900))}}"#
        }
        if roll == 1, input.sections.allSatisfy({ $0.ids != nil || $0.items.count == 0 }) {
            return diff(input, layout: name)
        }
        let updates = (0..<int(1...2)).map { _ in update(input, kind: kind) }
        return #"{"op":"update","layout":\#(name),"updates":[\#(updates.joined(separator: ","))]}"#
    }

    private mutating func update(_ input: LayoutInput, kind: LayoutKind) -> String {
        let counts = input.sections.map(\.items.count)
        let nonEmpty = counts.indices.filter { counts[$0] > 0 }
        let s = counts.isEmpty ? 0 : int(0...(counts.count - 1))
        let hasIDs = counts.isEmpty ? false : input.sections[s].ids != nil
        switch int(0...9) {
        case 0...2:
            return #"{"insert":[\#(s),\#(counts.isEmpty ? 0 : int(0...counts[s]))],"item":\#(item(kind, withID: hasIDs))}"#
        case 3 where !nonEmpty.isEmpty:
            let t = pick(nonEmpty)
            return #"{"delete":[\#(t),\#(int(0...(counts[t] - 1)))]}"#
        case 4...5 where !nonEmpty.isEmpty:
            let t = pick(nonEmpty)
            return #"{"reload":[\#(t),\#(int(0...(counts[t] - 1)))],"item":\#(item(kind, withID: false))}"#
        case 6 where !nonEmpty.isEmpty:
            let t = pick(nonEmpty)
            return #"{"move":[[\#(t),\#(int(0...(counts[t] - 1)))],[\#(t),\#(int(0...(counts[t] - 1)))]]}"#
        case 7:
            return #"{"insertSection":\#(int(0...counts.count)),"section":\#(section(kind, count: int(0...12), ids: chance(0.5)))}"#
        case 8 where counts.count > 1:
            return chance(0.5) ? #"{"deleteSection":\#(s)}"# : #"{"moveSection":[\#(s),\#(int(0...(counts.count - 1)))]}"#
        case 9 where !counts.isEmpty:
            return #"{"reloadSection":\#(s),"section":\#(section(kind, count: int(0...12), ids: chance(0.5)))}"#
        default:
            return #"{"insert":[\#(s),0],"item":\#(item(kind, withID: hasIDs))}"#
        }
    }

    /// New contents by id: some items dropped, some new, the rest shuffled, some resized.
    private mutating func diff(_ input: LayoutInput, layout: String) -> String {
        let kind = input.parameters.kind
        var sections: [String] = []
        for section in input.sections {
            var ids = (section.ids ?? []).map { id -> String in
                switch id {
                case .integer(let value): return String(value)
                case .string(let text): return string(text)
                }
            }
            ids.removeAll { _ in chance(0.2) }
            if chance(0.5) { ids.shuffle(using: &random) }
            ids += (0..<int(0...3)).map { _ in id() }
            let heights = ids.map { _ in chance(0.3) ? "null" : length(kind == .justified ? 1...3 : 0...90) }
            let column = kind == .justified ? "aspectRatios" : "heights"
            sections.append(#"{"ids":[\#(ids.joined(separator: ","))],"\#(column)":[\#(heights.joined(separator: ","))]}"#)
        }
        return #"{"op":"diff","layout":\#(layout),"sections":[\#(sections.joined(separator: ","))]}"#
    }
}
