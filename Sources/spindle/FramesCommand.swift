import ArgumentParser
import Foundation
import Pipeline

struct FramesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Visualiser frames of one analysed file.",
        discussion: """
            Reads the stored frames of FILE: relative to the library root or to the current folder, or \
            absolute inside the root; when nothing is there, a player's or server's path (`/music/...`, a \
            tag-built path, a file name) found by the four-strategy resolver, as `similar` finds it. The \
            library is --library's, or the one the database knows. A file that has not been analysed is \
            analysed on the spot (frames only). --json prints an array of frames, each an array of band \
            levels from 0 to 1.
            """)

    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print the frames as JSON.") var json = false
    @Argument(help: "The audio file.") var file: String

    func run() throws {
        try runCommand {
            let (frames, guess) = try FramesLookup.frames(of: file, settings: try global.settings(jobs: 1))
            if let guess, !global.quiet { printError(guess) }
            if json {
                // A piece at a time: a long recording's frames are hundreds of megabytes of text.
                var pieces = FramesJSON.Pieces()
                let step = FramesJSON.Pieces.bytes(bands: frames.bands)
                frames.data.withUnsafeBytes { raw in
                    let all = raw.bindMemory(to: UInt8.self)
                    for offset in stride(from: 0, to: all.count, by: step) {
                        writeOut(pieces.piece(bands: frames.bands, data: UnsafeBufferPointer(rebasing: all[offset..<min(all.count, offset + step)])))
                    }
                }
                writeOut(pieces.end() + [UInt8(ascii: "\n")])
            } else {
                print(String(format: "%d frames × %d bands at %g fps", frames.count, frames.bands, frames.fps))
                let levels = " ▁▂▃▄▅▆▇█".map { String($0) }
                for i in stride(from: 0, to: frames.count, by: max(1, Int(frames.fps))).prefix(40) {
                    let bars = frames.frame(i).map { levels[min(8, Int($0 * 8.999))] }.joined()
                    print(String(format: "%7.2f s  ", Double(i) / frames.fps) + bars)
                }
            }
            return 0
        }
    }
}

/// Text to standard output, as `print` writes it.
private func writeOut(_ bytes: [UInt8]) {
    print(String(decoding: bytes, as: UTF8.self), terminator: "")
}
