import Foundation
import Prometheus
import Store

/// What `/metrics` exposes, in Prometheus' text format: the server's own traffic, counted as it happens,
/// and the library's figures, read from the database at each scrape.
final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    /// Latency buckets from 0.5 ms to 5 s: profile lookups sit at the low end, a first `/similar` (which
    /// loads the sonic space) at the high end.
    private static let buckets: [Duration] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
        .map { Duration.nanoseconds(Int64($0 * 1e9)) }
    private static var requests: MetricNameDescriptor { name("http_requests", "total", "HTTP requests answered, by route and status.") }
    private static var latency: MetricNameDescriptor { name("http_request_duration", "seconds", "Time to answer, by route.") }

    private let analysed: Gauge
    private let failures: Gauge
    private let frameSets: Gauge
    private let lastRunSeconds: Gauge
    private let lastRunEnd: Gauge
    private let databaseBytes: Gauge
    private let databaseUp: Gauge

    init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        func gauge(_ metric: String, _ unit: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: Self.name(metric, unit, help))
        }
        analysed = gauge("tracks_analysed", "", "Present tracks with a profile (analysed without error).")
        failures = gauge("analysis_failures", "", "Present tracks whose latest analysis failed.")
        frameSets = gauge("frame_sets", "", "Present tracks with stored visualiser frames.")
        lastRunSeconds = gauge("last_run_duration", "seconds", "How long the latest finished run took.")
        lastRunEnd = gauge("last_run_end_timestamp", "seconds", "When the latest finished run ended (Unix time).")
        databaseBytes = gauge("database_size", "bytes", "The database file and its write-ahead log.")
        databaseUp = gauge("database_up", "", "1 when the database could be read at the last scrape.")
    }

    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "spindle", metricName: metric, unitName: unit, helpText: help)
    }

    /// Counts one answered request. `route` is the matched route's pattern, never the raw path, so a
    /// client cannot make the label set grow.
    func record(route: String, status: Int, seconds: Double) {
        registry.makeCounter(descriptor: Self.requests, labels: [("route", route), ("status", String(status))]).increment()
        registry.makeDurationHistogram(descriptor: Self.latency, labels: [("route", route)], buckets: Self.buckets)
            .record(Duration.nanoseconds(Int64(seconds * 1e9)))
    }

    /// Refreshes the library's gauges (nil: the database could not be read) and renders everything.
    func render(figures: ServeQueries.Figures?, databasePath: String) -> [UInt8] {
        databaseUp.set(to: figures == nil ? 0.0 : 1.0)
        if let figures {
            analysed.set(to: Double(figures.profiles))
            failures.set(to: Double(figures.failures))
            frameSets.set(to: Double(figures.frameSets))
            if let run = figures.lastFinishedRun, let end = run.finishedAt {
                lastRunSeconds.set(to: end.timeIntervalSince(run.startedAt))
                lastRunEnd.set(to: end.timeIntervalSince1970)
            }
        }
        databaseBytes.set(to: Double(Self.size(databasePath) + Self.size(databasePath + "-wal")))
        return registry.emitToBuffer()
    }

    private static func size(_ path: String) -> Int64 {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : 0
    }
}
