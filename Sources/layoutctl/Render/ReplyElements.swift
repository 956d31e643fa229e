import LayoutClient
import LayoutEngine

/// The elements of a reply's `attributes`, in either wire format.
enum ReplyElements {
    private static let fields = ["kind", "section", "item", "x", "y", "width", "height"]

    /// `attributes` as elements: an array of objects (`"format":"objects"`) or an object of arrays
    /// (`"format":"columns"`). nil when it is neither, or an element lacks a field or names an unknown kind.
    static func elements(_ attributes: Any?) -> [LayoutElement]? {
        var objects: [AnyJSONObject] = []
        if let array = attributes as? [Any] {
            for element in array {
                guard let object = element as? [String: Any] else { return nil }
                objects.append(AnyJSONObject(object))
            }
        } else if let columns = attributes as? [String: Any] {
            let arrays = fields.compactMap { columns[$0] as? [Any] }
            guard arrays.count == fields.count, let count = arrays.first?.count,
                  arrays.allSatisfy({ $0.count == count })
            else { return nil }
            objects.reserveCapacity(count)
            for index in 0..<count {
                var object = AnyJSONObject()
                for (field, array) in zip(fields, arrays) { object[field] = array[index] }
                objects.append(object)
            }
        } else {
            return nil
        }
        var elements: [LayoutElement] = []
        elements.reserveCapacity(objects.count)
        for object in objects {
            guard let element = element(object) else { return nil }
            elements.append(element)
        }
        return elements
    }

    private static func element(_ object: AnyJSONObject) -> LayoutElement? {
        guard let name = object.string("kind"), let kind = ElementKind.allCases.first(where: { $0.name == name }),
              let section = object.int("section"), let item = object.int("item"),
              let x = object.double("x"), let y = object.double("y"),
              let width = object.double("width"), let height = object.double("height")
        else { return nil }
        return LayoutElement(kind: kind, section: section, item: item, frame: Rect(x: x, y: y, width: width, height: height))
    }
}
