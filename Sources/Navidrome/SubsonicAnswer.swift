import Foundation

/// What a Subsonic server's answer says: `status` ok, or failed with an error code and message. Spindle asks
/// for JSON (`f=json`); a server that answers XML anyway (one that ignores `f`) is read too, and anything
/// else is described, so that a login page or a proxy in front of the server is named as such instead of
/// "not a Subsonic response".
enum SubsonicAnswer: Equatable {
    case ok
    case failed(code: Int, message: String)
    case notSubsonic(String)

    init(_ data: Data, contentType: String?) {
        if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let body = object["subsonic-response"] as? [String: Any] {
            let details = body["error"] as? [String: Any]
            self = body["status"] as? String == "ok" ? .ok
                : .failed(code: details?["code"] as? Int ?? -1, message: details?["message"] as? String ?? "unknown error")
            return
        }
        let text = String(decoding: data.prefix(65_536), as: UTF8.self)
        if let root = Self.element("subsonic-response", in: text) {
            let error = Self.element("error", in: text)
            self = Self.attribute("status", of: root) == "ok" ? .ok
                : .failed(code: error.flatMap { Self.attribute("code", of: $0) }.flatMap { Int($0) } ?? -1,
                          message: error.flatMap { Self.attribute("message", of: $0) } ?? "unknown error")
            return
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if (contentType ?? "").lowercased().contains("html") || trimmed.lowercased().hasPrefix("<!doctype html")
            || trimmed.lowercased().hasPrefix("<html") {
            self = .notSubsonic("a web page, not a Subsonic response: is the address the server's own, not a login page or proxy in front of it?")
        } else if trimmed.isEmpty {
            self = .notSubsonic("not a Subsonic response (an empty answer)")
        } else {
            let start = String(trimmed.prefix(60).map { $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } ? " " : $0 })
            self = .notSubsonic("not a Subsonic response (it begins “\(start)\(trimmed.count > 60 ? "…" : "")”)")
        }
    }

    /// The first `<name …>` start tag's text, attributes and all.
    private static func element(_ name: String, in text: String) -> Substring? {
        guard let open = text.range(of: "<" + name),
              let close = text[open.upperBound...].firstIndex(of: ">") else { return nil }
        let next = text[open.upperBound...].first
        guard next == " " || next == ">" || next == "/" || next == "\n" || next == "\t" || next == "\r" else { return nil }
        return text[open.upperBound..<close]
    }

    /// An attribute's value in a start tag, its five predefined entities decoded.
    private static func attribute(_ name: String, of tag: Substring) -> String? {
        for quote in ["\"", "'"] {
            guard let start = tag.range(of: " " + name + "=" + quote) ?? tag.range(of: "\n" + name + "=" + quote),
                  let end = tag[start.upperBound...].firstIndex(of: Character(quote)) else { continue }
            return String(tag[start.upperBound..<end])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        return nil
    }
}
