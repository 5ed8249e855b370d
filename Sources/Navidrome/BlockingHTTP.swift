import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request made and waited for, for the command-line clients of the media servers (rescan, import).
public enum BlockingHTTP {
    public struct Answer: Sendable {
        public var data: Data?
        public var response: HTTPURLResponse?
        public var error: (any Error)?
    }

    public static func send(_ request: URLRequest) -> Answer {
        let box = AnswerBox()
        let semaphore = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(Answer(data: data, response: response as? HTTPURLResponse, error: error))
            semaphore.signal()
        }.resume()
        semaphore.wait()
        return box.get()
    }
}

private final class AnswerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = BlockingHTTP.Answer()
    func set(_ answer: BlockingHTTP.Answer) { lock.lock(); value = answer; lock.unlock() }
    func get() -> BlockingHTTP.Answer { lock.lock(); defer { lock.unlock() }; return value }
}
