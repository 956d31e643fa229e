/// A first-in first-out queue with O(1) pops (an array and a head index, compacted as it drains).
struct FIFO<Element> {
    private var elements: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == elements.count }
    var count: Int { elements.count - head }

    mutating func append(_ element: Element) {
        elements.append(element)
    }

    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head > 64, head * 2 > elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes the first element equal to `element`; whether there was one.
    mutating func remove(_ element: Element) -> Bool where Element: Equatable {
        guard let index = elements[head...].firstIndex(of: element) else { return false }
        elements.remove(at: index)
        return true
    }

    mutating func removeAll() {
        elements.removeAll()
        head = 0
    }

    var all: ArraySlice<Element> { elements[head...] }
}
