import PKI

/// An Android app making its requests with OkHttp: the trust manager, then `OkHostnameVerifier`, then
/// `CertificatePinner` (`OkHttpClient+Evaluate.swift`).
///
/// Two releases: today's, which checks pins over the chain cleaned back to a trusted root, and the one
/// before the CVE-2016-2402 fix, which checked them over the chain as the server presented it.
public struct OkHttpClient: Sendable, Equatable {
    /// Which OkHttp; the raw value is the model's name.
    public enum Version: String, Sendable, CaseIterable {
        /// OkHttp 4.12.0 (Docs/peers.md §6 cites its source): pins over the cleaned chain, `**.` patterns, host
        /// names from the SAN only.
        case current = "okhttp"
        /// Before the CVE-2016-2402 fix (the CVE record says "before 3.1.2"): pins over the presented chain,
        /// only exact and `*.` patterns, and the host-name verifier falls back to the common name when the
        /// leaf has no DNS names in its SAN.
        case beforeChainCleaning = "okhttp-3.1.1"

        /// The release's `OkHostnameVerifier`.
        public var hostnameVerifier: OkHostnameVerifier {
            switch self {
            case .current: .okHttp4
            case .beforeChainCleaning: .okHttp3
            }
        }

        /// The oldest TLS version the release's default `connectionSpecs` offer, on Android
        /// (`ConnectionSpec.MODERN_TLS` at `parent-4.12.0` and `parent-3.1.1`; Docs/peers.md §6).
        var tlsVersionFloor: TLSVersionFloor {
            switch self {
            case .current:
                // Android's own floor is never above TLS 1.2, so MODERN_TLS decides.
                TLSVersionFloor(
                    minimum: .tls12,
                    rule: "OkHttp 4.12.0's default ConnectionSpec.MODERN_TLS enables only TLS 1.3 and TLS 1.2 (OkHttp 3.13 dropped TLS 1.1 and 1.0 from it)")
            case .beforeChainCleaning:
                AndroidTrust.platformFloor.after("OkHttp 3.1.1's ConnectionSpec.MODERN_TLS enables TLS 1.2, 1.1 and 1.0")
            }
        }
    }

    public var version: Version
    /// `OkHttpClient.Builder.certificatePinner`; empty (`CertificatePinner.DEFAULT`) unless the app pins.
    public var certificatePinner: CertificatePinner
    /// `OkHttpClient.Builder.sslSocketFactory(_, trustManager)`; the platform's default unless the app sets one.
    public var trustManager: AndroidTrustManager
    /// The app's `targetSdkVersion`, for Android's TLS-version floor (the platform trust manager carries its own).
    public var targetSdkVersion: Int
    /// True when the attacker's `certificatePinnerCheck` hook made `CertificatePinner.check` a no-op.
    public var pinnerCheckHooked = false
    /// True when the attacker's `sslContextTrustAll` hook gave `SSLContext.init` a trust-all X509TrustManager.
    /// OkHttp keeps its own reference to the platform trust manager for its certificate chain cleaner, which
    /// the hook does not replace (`OkHttpClient`'s init at parent-4.12.0: `CertificateChainCleaner.get(x509TrustManager)`).
    public var handshakeTrustsAll = false

    public init(
        version: Version = .current, certificatePinner: CertificatePinner = CertificatePinner(),
        trustManager: AndroidTrustManager = .platformDefault(targetSdkVersion: NetworkSecurityConfig.defaultTargetSdkVersion),
        targetSdkVersion: Int = NetworkSecurityConfig.defaultTargetSdkVersion
    ) {
        self.version = version
        self.certificatePinner = certificatePinner
        self.trustManager = trustManager
        self.targetSdkVersion = targetSdkVersion
    }
}

/// The X509TrustManager an Android app's TLS uses, when no Network Security Config file changes it.
public enum AndroidTrustManager: Sendable, Equatable {
    /// The platform default: Android's system CA store, plus the user-added CA store when the app's
    /// `targetSdkVersion` is 23 or lower (Android 7 made apps targeting 24 and later opt in).
    case platformDefault(targetSdkVersion: Int)
    /// `TrustManagerFactory.init(keyStore)` over the app's own certificates: only they are anchors, and any
    /// of them may end a chain.
    case certificates([Certificate])

    /// The certificates that may end a chain on a device with `store`.
    func anchors(in store: DeviceTrustStore) -> [Certificate] {
        switch self {
        case .platformDefault(let sdk): store.system + (sdk <= NetworkSecurityConfig.lastSdkTrustingUserCAs ? AndroidTrust.userAdded(store) : [])
        case .certificates(let certificates): certificates
        }
    }

    /// "the platform's default trust manager (targetSdkVersion 34: the system CA store only)".
    var phrase: String {
        switch self {
        case .platformDefault(let sdk):
            "the platform's default trust manager (targetSdkVersion \(sdk): "
                + (sdk <= NetworkSecurityConfig.lastSdkTrustingUserCAs
                    ? "the system and user-added CA stores)" : "the system CA store only; user-added CAs need targetSdkVersion 23 or lower)")
        case .certificates(let certificates):
            "the app's own trust manager, whose only anchors are \(SecurityPolicy.names(certificates))"
        }
    }
}

/// Sentences the Android models share.
enum AndroidTrust {
    /// Android's user-added CA store: every CA the user installed. Android has no full-trust switch, so a root
    /// a lesson installs without iOS's full trust is in it too.
    static func userAdded(_ store: DeviceTrustStore) -> [Certificate] { store.userInstalled + store.installedWithoutFullTrust }

    /// The HostnameVerifier's step: `verifier`'s rules (the leaf's SAN, and for OkHttp before 3.10 its common
    /// name when the SAN has no DNS names) against the host; the rejection when it fails.
    static func verifyHostname(
        _ leaf: Certificate, host: String, check: TraceStep.Check, verifier: OkHostnameVerifier, named name: String
    ) -> (step: TraceStep, rejection: RejectionReason?) {
        let sanNames = leaf.dnsNames + leaf.ipAddresses
        let listed = sanNames.isEmpty ? "no names in its SAN" : "the SAN names " + sanNames.joined(separator: ", ")
        switch verifier.match(host: host, leaf: leaf) {
        case .subjectAlternativeName(let entry)?:
            let wildcard = entry.lowercased() == host.lowercased() ? "" : " ('\(entry)' names '\(host)' by OkHostnameVerifier's rules)"
            return (TraceStep(check, .passed, "\(name) accepts '\(host)': the leaf '\(leaf.label)' has \(listed)\(wildcard)"), nil)
        case .commonName(let commonName)?:
            return (
                TraceStep(
                    check, .passed,
                    "\(name) accepts '\(host)': the leaf '\(leaf.label)' has no DNS names in its SAN, so it falls back to "
                        + "the common name '\(commonName)', which names the host"), nil
            )
        case nil:
            // OkHostnameVerifier reads the common name only for a host name (never an IP address), and only when
            // the SAN holds no DNS name at all.
            let readsCommonName = verifier.commonNameFallback && leaf.dnsNames.isEmpty && IPAddress.bytes(host) == nil
            let commonName =
                !verifier.commonNameFallback
                ? "; the common name is never read"
                : readsCommonName ? ", and its common name \(leaf.subject.commonName.map { "'\($0)'" } ?? "is missing") does not name it either" : ""
            return (
                TraceStep(
                    check, .failed,
                    "\(name) refuses '\(host)': the leaf '\(leaf.label)' has \(listed)\(sanNames.isEmpty ? "" : ", none of which is the host")\(commonName). "
                        + "SSLPeerUnverifiedException: Hostname \(host) not verified"),
                .untrustedChain(TrustFailure(kind: .hostnameMismatch(host: host), certificate: leaf))
            )
        }
    }
}
