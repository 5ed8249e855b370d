import Foundation

/// A network's trained tensors, read from Spindle's weight file (`scripts/fetch-musicnn.py` writes it from the
/// published checkpoint): b"SPNWGT01", a uint32 count, then per tensor a uint16 name length, the name, a uint8
/// rank, uint32 dimensions and float32 values, all little-endian.
public struct NetworkWeights: Sendable {
    public struct Tensor: Sendable {
        public var shape: [Int]
        public var values: [Float]

        public init(shape: [Int], values: [Float]) { self.shape = shape; self.values = values }
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public var tensors: [String: Tensor]

    public init(tensors: [String: Tensor]) { self.tensors = tensors }

    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw Invalid(description: "cannot read \(path)") }
        try self.init(data: data, named: path)
    }

    public init(data: Data, named name: String) throws {
        let bytes = [UInt8](data)
        var pos = 0
        func need(_ n: Int) throws {
            guard n >= 0, pos + n <= bytes.count else { throw Invalid(description: "\(name) is cut short at byte \(pos)") }
        }
        func integer(_ width: Int) throws -> Int {
            try need(width)
            defer { pos += width }
            return (0..<width).reduce(0) { $0 | Int(bytes[pos + $1]) << (8 * $1) }
        }
        try need(8)
        guard Array(bytes[0..<8]) == Array("SPNWGT01".utf8) else { throw Invalid(description: "\(name) is not a Spindle weight file") }
        pos = 8
        var tensors: [String: Tensor] = [:]
        for _ in 0..<(try integer(4)) {
            let length = try integer(2)
            try need(length)
            let key = String(decoding: bytes[pos..<pos + length], as: UTF8.self)
            pos += length
            let shape = try (0..<(try integer(1))).map { _ in try integer(4) }
            let count = shape.reduce(1, *)
            try need(4 * count)
            let values = (0..<count).map { i in
                let at = pos + 4 * i
                return Float(bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)
            }
            pos += 4 * count
            tensors[key] = Tensor(shape: shape, values: values)
        }
        self.tensors = tensors
    }

    /// The weight file of these tensors, names in order (what `init(data:named:)` reads).
    public func encoded() -> Data {
        func le(_ v: Int, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var out = Array("SPNWGT01".utf8) + le(tensors.count, 4)
        for (name, t) in tensors.sorted(by: { $0.key < $1.key }) {
            out += le(name.utf8.count, 2) + Array(name.utf8) + le(t.shape.count, 1) + t.shape.flatMap { le($0, 4) }
            out += FloatBlob.encode(t.values)
        }
        return Data(out)
    }

    /// The tensor `name`, which must have `shape`.
    func tensor(_ name: String, _ shape: [Int]) throws -> [Float] {
        guard let t = tensors[name] else { throw Invalid(description: "the weights lack \(name)") }
        guard t.shape == shape else { throw Invalid(description: "\(name) has shape \(t.shape), not \(shape)") }
        return t.values
    }
}
