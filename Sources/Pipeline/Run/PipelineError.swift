/// A run could not go on (a worker could not start, a report could not be written): exit code 1.
public struct PipelineError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
