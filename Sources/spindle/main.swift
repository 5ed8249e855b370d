import Analysis
import Foundation
import Pipeline

for path in CommandLine.arguments.dropFirst() {
    let o = FileAnalysis.run(path: path, options: AnalysisOptions())
    print(InspectReport.json(o).serialized())
}
