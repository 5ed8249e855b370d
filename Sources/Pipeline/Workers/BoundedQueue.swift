import Foundation

/// A blocking FIFO with a capacity, joining one stage to the next: a producer that runs ahead waits, so
/// a 100,000-file library never sits in memory as pending work.
final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private let capacity: Int
    private var closed = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Blocks while full. Returns false when the queue was closed (the element is dropped).
    @discardableResult
    func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(element)
        condition.broadcast()
        return true
    }

    /// Blocks while empty; nil once the queue is closed and drained.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.count == head && !closed { condition.wait() }
        guard items.count > head else { return nil }
        let element = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return element
    }

    /// No more puts; takers drain what is left, then get nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
