import Foundation

/// Runs `work` over `items` on `jobs` threads and hands each result to `deliver` on the calling thread
/// as soon as it is ready, so one writer can store results while the workers go on.
public enum ParallelWork {
    public static func run<Item: Sendable, Result: Sendable>(_ items: [Item], jobs: Int,
                                                       work: @escaping @Sendable (Item) -> Result,
                                                       deliver: (Item, Result) throws -> Void) throws {
        guard !items.isEmpty else { return }
        let queue = WorkQueue(items: items)
        let results = ResultQueue<Item, Result>()
        let threads = max(1, min(jobs, items.count))
        for _ in 0..<threads {
            let thread = Thread {
                while let item = queue.next() {
                    results.push(item, work(item))
                }
                results.workerFinished()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        var delivered = 0
        while delivered < items.count {
            guard let (item, result) = results.pop(workers: threads) else { break }
            delivered += 1
            do {
                try deliver(item, result)
            } catch {
                queue.cancel()
                while results.pop(workers: threads) != nil {}
                throw error
            }
        }
    }
}

private final class WorkQueue<Item: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item]
    private var index = 0
    init(items: [Item]) { self.items = items }
    func next() -> Item? {
        lock.lock(); defer { lock.unlock() }
        guard index < items.count else { return nil }
        index += 1
        return items[index - 1]
    }
    func cancel() {
        lock.lock(); defer { lock.unlock() }
        index = items.count
    }
}

private final class ResultQueue<Item: Sendable, Result: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [(Item, Result)] = []
    private var finishedWorkers = 0
    func push(_ item: Item, _ result: Result) {
        condition.lock()
        pending.append((item, result))
        condition.signal()
        condition.unlock()
    }
    func workerFinished() {
        condition.lock()
        finishedWorkers += 1
        condition.signal()
        condition.unlock()
    }
    /// Next result, or nil once every worker finished and nothing is left.
    func pop(workers: Int) -> (Item, Result)? {
        condition.lock(); defer { condition.unlock() }
        while pending.isEmpty && finishedWorkers < workers { condition.wait() }
        return pending.isEmpty ? nil : pending.removeFirst()
    }
}
