/// A problem with what the user pointed Spindle at (a Navidrome database that is not one, a password file
/// that cannot be read): a configuration error, exit code 2.
public struct NavidromeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
