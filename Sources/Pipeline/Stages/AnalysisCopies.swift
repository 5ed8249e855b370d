import Library
import Store

/// The files of one analyze run that hold the same bytes as another file, which are not decoded: the same
/// download in two folders, an album copied beside the original. Equal content keys make two files candidates
/// (a key no other file has, the usual case, costs nothing more); `IdenticalFiles` reads both to be sure.
struct AnalysisCopies {
    /// Files identical to a file whose analysis is current and ok, with that file's id.
    var ofAnalysed: [(file: FileToAnalyse, source: Int64)] = []
    /// The files to decode: one of each set of identical files.
    var toDecode: [FileToAnalyse] = []
    /// For a file to decode, the files identical to it, which take its results when it has them.
    var followers: [Int64: [FileToAnalyse]] = [:]

    /// `files` in the order they are to be decoded; the first of identical files is decoded. With `--force`
    /// nothing is taken from earlier results.
    static func find(among files: [FileToAnalyse], context: RunContext, versions: [String: Int]) throws -> AnalysisCopies {
        var copies = AnalysisCopies()
        let keys = Set(files.compactMap(\.contentKey))
        let analysed = context.force ? [:] : try context.database.writer.read { db in
            try AnalysisQueries.analysedByContent(db, rootId: context.rootId, contentKeys: keys, versions: versions)
        }
        var decoded: [String: [FileToAnalyse]] = [:]
        for file in files {
            guard let key = file.contentKey else { copies.toDecode.append(file); continue }
            if let source = analysed[key]?.first(where: {
                $0.fileId != file.fileId && IdenticalFiles.same($0.path, file.path, root: context.root)
            }) {
                copies.ofAnalysed.append((file, source.fileId))
            } else if let first = decoded[key]?.first(where: { IdenticalFiles.same($0.path, file.path, root: context.root) }) {
                copies.followers[first.fileId, default: []].append(file)
            } else {
                decoded[key, default: []].append(file)
                copies.toDecode.append(file)
            }
        }
        return copies
    }
}
