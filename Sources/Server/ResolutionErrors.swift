import Library
import Pipeline

extension ServedLibrary.Open {
    /// Resolves a player's path with the four strategies; a database failure on the way is a 503.
    func resolve(_ input: String) throws -> Resolution {
        do { return try resolver.resolve(input) } catch { throw APIError.unavailable(ServedLibrary.describe(error)) }
    }

    /// Of the readings of one path parameter (`QueryString.pathReadings`), the first that names a library
    /// file exactly (strategies 1–2), or the first reading when none does, to be resolved with guesses.
    func pathReading(_ readings: [String]) throws -> String {
        guard readings.count > 1 else { return readings[0] }
        return try readings.first { try resolveExactly($0).isExact } ?? readings[0]
    }

    /// Strategies 1–2 only (`PathResolver.resolveExactly`); a database failure on the way is a 503.
    func resolveExactly(_ input: String) throws -> Resolution {
        do { return try resolver.resolveExactly(input) } catch { throw APIError.unavailable(ServedLibrary.describe(error)) }
    }
}

extension Resolution {
    /// The client's error for an input that resolved to no file: 400 when refused (`..`, NUL, a symlink
    /// out of the root), else 404 with every candidate tried, as the companion answered.
    var apiError: APIError? {
        guard resolved == nil else { return nil }
        if let refused { return APIError(.badRequest, "refused: \(refused)") }
        let tried: (String, JSONValue) = ("tried", .array(tried.map { .string($0) }))
        if !ambiguous.isEmpty {
            return APIError(.notFound, failure ?? "ambiguous", [("ambiguous", .array(ambiguous.map { .string($0) })), tried])
        }
        return APIError(.notFound, "no file in the library matches \(input)", [tried])
    }
}
