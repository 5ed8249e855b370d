import Foundation
import GRDB

/// Column names are the snake_case of the property names.
public protocol SnakeCaseRecord: Codable, FetchableRecord, MutablePersistableRecord {}
extension SnakeCaseRecord {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}
