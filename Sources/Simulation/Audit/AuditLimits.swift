/// How large an audit's inputs may be, and how deep its XML may nest; `Docs/limits.md` gives the reasons.
public enum AuditLimits {
    /// Bytes in a network security config, an OkHttp pin file or an AFNetworking audit file (an app's are a few KB).
    public static let configurationBytes = 64 << 10
    /// How deep a network security config's elements may nest (Foundation's reader recurses once per level).
    public static let xmlDepth = 32
    /// Hosts one audit covers, each a world and every attack: the cost grows with each.
    public static let hosts = 16
    /// Real runs one audit makes (hosts × clients × attacks), each a TLS handshake or two: the audit's whole work.
    public static let runs = 144
    /// `--chain` files.
    public static let chains = 8
    /// Certificates in one `--chain` file (a server sends two or three).
    public static let chainCertificates = 6
    /// Pinned certificate files in an AFNetworking audit file: with a chain of `chainCertificates`, each may be a
    /// certificate of the host's world, which holds at most `ScenarioLimits.certificates`.
    public static let pinnedCertificates = ScenarioLimits.certificates - chainCertificates
}
