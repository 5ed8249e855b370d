/// The version `spindle --version` and the read API's `/health` report.
public enum SpindleVersion {
    public static let text = "0.6.0"
}
