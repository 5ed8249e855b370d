import GRDB

/// Reading a column of a fetched row without trapping. GRDB's subscript traps on a value that does not convert
/// (text where a number belongs), which a merged or hand-edited database can hold: one such row took down
/// `serve` and every command reading it. These throw GRDB's decoding error instead, whose text shows the row
/// and so the file.
extension Row {
    @inlinable
    public func at<Value: DatabaseValueConvertible>(_ index: Int) throws -> Value { try decode(atIndex: index) }

    @inlinable
    public func at<Value: DatabaseValueConvertible>(_ column: String) throws -> Value { try decode(forColumn: column) }
}
