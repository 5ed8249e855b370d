import Foundation
import GRDB

extension Migrations {
    static func v12BpmAlternative(_ db: Database) throws {
        // The tempo analyzer's runner-up metrical level, when the evidence is split between two.
        try db.alter(table: "analysis") { t in t.add(column: "bpm_alternative", .double) }
    }
}
