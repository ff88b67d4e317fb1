import Foundation
import PKI

/// An Android app whose HTTPS goes through the platform's TLS under its Network Security Config
/// (`NetworkSecurityTrustManager`), then the HTTP stack's host-name check.
public struct AndroidNetworkSecurityClient: Sendable, Equatable {
    /// The app's `network_security_config.xml`; an empty one is the platform default for every host.
    public var config: NetworkSecurityConfig
    /// The manifest's `targetSdkVersion`: 23 or lower trusts the user-added CA store by default, below 28 permits cleartext.
    public var targetSdkVersion: Int
    /// `android:debuggable`: only a debuggable build uses `debug-overrides`.
    public var debuggable: Bool
    /// True when the attacker's `networkSecurityConfigPins` hook gave every config `PinSet.EMPTY_PINSET`.
    public var pinsHooked = false

    public init(
        config: NetworkSecurityConfig = NetworkSecurityConfig(), targetSdkVersion: Int = NetworkSecurityConfig.defaultTargetSdkVersion,
        debuggable: Bool = false
    ) {
        self.config = config
        self.targetSdkVersion = targetSdkVersion
        self.debuggable = debuggable
    }

    /// Before any connection: whether the config that governs `host` lets an `http://` load out; nil for
    /// any other scheme.
    public func evaluateLoad(scheme: String, host: String) -> PolicyEvaluation? {
        guard scheme.lowercased() == "http" else { return nil }
        let resolved = resolve(host: host)
        let from = "cleartextTrafficPermitted is \(resolved.cleartextTrafficPermitted) (\(resolved.cleartextOrigin))"
        guard resolved.cleartextTrafficPermitted else {
            let step = TraceStep(
                .androidCleartextTraffic, .failed,
                "\(from) for '\(host)': the http:// load is refused before any connection. "
                    + "IOException: Cleartext HTTP traffic to \(host) not permitted")
            return PolicyEvaluation(steps: [step], path: [], rejection: .androidCleartextNotPermitted)
        }
        let step = TraceStep(.androidCleartextTraffic, .passed, "\(from) for '\(host)': the http:// load goes out in the clear")
        return PolicyEvaluation(steps: [step], path: [], rejection: nil)
    }
}

extension AndroidNetworkSecurityClient: ClientModel {
    /// `RootTrustManager` picks the config for the host; `NetworkSecurityTrustManager.checkServerTrusted` validates
    /// the chain against its trust anchors, then `checkPins`; after the handshake the HostnameVerifier checks the host.
    public func evaluate(_ connection: PresentedConnection) -> PolicyEvaluation {
        var trace = Trace()
        let trust = connection.serverTrust
        let host = connection.host
        // The protocol version is settled in the ServerHello, before any certificate is looked at.
        let floor = AndroidTrust.platformFloor
        guard floor.allows(connection.negotiated.version, check: .androidTLSVersion, failure: "SSLHandshakeException", trace: &trace) else {
            return trace.reject(.tlsVersionRefused, path: [])
        }
        let resolved = resolve(host: host)
        trace.add(.androidDomainConfig, .note, resolved.summary(host: host))

        let store = trust.deviceTrustStore
        let anchors = resolved.anchors.flatMap { $0.certificates(in: store) }
        let resources = resolved.anchors.compactMap { entry -> (name: String, certificates: [Certificate])? in
            if case .resource(let name, let certificates) = entry.source { return (name, certificates) }
            return nil
        }
        let validation = AndroidTrust.evaluate(trust, anchors: anchors)
        let result = validation.result
        guard result.isValid else {
            trace.add(
                .androidTrustAnchors, .failed,
                "the chain does not validate against the trust anchors (\(resolved.anchorList)): \(SecurityPolicy.failures(result)). "
                    + "checkServerTrusted throws and the handshake fails with SSLHandshakeException")
            return trace.reject(result)
        }
        trace.add(
            .androidTrustAnchors, .passed,
            "the chain validates against the trust anchors (\(resolved.anchorList)): path \(result.path.pathDescription)"
                + validation.anchorClause(store: store, resources: resources))

        // checkPins reads the whole trusted chain, carried on through the trust anchors.
        let path = validation.trustedChain
        // Conscrypt's TrustManagerImpl checks CT inside checkServerTrusted, before the config's checkPins runs.
        if let transparency = resolved.transparency.step(path: path, trust: trust) {
            trace.steps.append(transparency.step)
            if let rejection = transparency.rejection { return trace.reject(rejection, path: path) }
        }
        if let rejection = checkPins(resolved, path: path, at: trust.verifyDate, store: store, trace: &trace) {
            return trace.reject(rejection, path: path)
        }

        let hostname = AndroidTrust.verifyHostname(
            trust.leaf, host: host, check: .androidHostnameVerifier, verifier: .android,
            named: "the default HostnameVerifier (Android's bundled OkHostnameVerifier)")
        trace.steps.append(hostname.step)
        if let rejection = hostname.rejection { return trace.reject(rejection, path: path) }
        return trace.accept(path: path)
    }

    /// `checkPins`: skipped for an empty or expired pin-set and for a chain whose anchor overrides pins; else
    /// some certificate of the trusted chain, root first, must have a pinned SPKI digest.
    private func checkPins(
        _ resolved: ResolvedConfig, path: [Certificate], at now: Date, store: DeviceTrustStore, trace: inout Trace
    ) -> RejectionReason? {
        guard let pinSet = resolved.pinSet, !pinSet.pins.isEmpty else {
            trace.add(.androidPinSet, .skipped, "no pin-set applies to '\(resolved.host)', so the trusted chain is not pinned")
            if pinsHooked {
                trace.add(
                    .networkSecurityConfigPinsHook, .note,
                    "hooked: \(RuntimeHook.networkSecurityConfigPins.target) is given PinSet.EMPTY_PINSET, but the config pins nothing here, "
                        + "so nothing changes")
            }
            return nil
        }
        if pinsHooked {
            trace.add(
                .networkSecurityConfigPinsHook, .passed,
                "hooked: \(RuntimeHook.networkSecurityConfigPins.target) is given PinSet.EMPTY_PINSET in place of the XML's pin-set for "
                    + "'\(resolved.host)' (\(pinSet.pins.map(\.description).joined(separator: ", "))), so checkPins finds no pin and the trusted "
                    + "chain is not pinned")
            return nil
        }
        if let expiration = pinSet.expiration, now > expiration {
            trace.add(
                .androidPinSet, .skipped,
                "the pin-set expired on \(Self.day(expiration)) (its expiration attribute): expired pins are ignored, "
                    + "so the trust anchors alone decide")
            return nil
        }
        // findTrustAnchorBySubjectAndPublicKey: an entry that overrides pins wins over one that does not.
        if let anchor = path.last, let overriding = resolved.anchors.first(where: { $0.overridePins && $0.contains(anchor, in: store) }) {
            trace.add(
                .androidPinSet, .skipped,
                "the chain ends at '\(anchor.label)', a trust anchor from <certificates src=\"\(overriding.source.src)\" overridePins=\"true\">"
                    + "\(overriding.fromDebugOverrides ? " in debug-overrides" : ""): pins are not checked for chains it anchors")
            return nil
        }
        let pinned = Set(pinSet.pins.map(\.digest))
        if let match = path.reversed().first(where: { pinned.contains($0.publicKeySHA256Base64) }) {
            trace.add(
                .androidPinSet, .passed,
                "'\(match.label)' in the trusted chain \(path.pathDescription) has a public key whose SHA-256 is in the pin-set "
                    + "(SHA-256/\(match.publicKeySHA256Base64))")
            return nil
        }
        trace.add(
            .androidPinSet, .failed,
            "none of the \(path.count) public keys of the trusted chain \(path.pathDescription) is in the pin-set "
                + "(\(pinSet.pins.map(\.description).joined(separator: ", "))). CertificateException: Pin verification failed")
        return .androidPinVerificationFailed
    }

    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}

// MARK: - Which config governs a host

extension AndroidNetworkSecurityClient {
    /// One trust-anchor entry with its defaults applied.
    struct Anchor {
        let source: NetworkSecurityConfig.CertificatesEntry.Source
        let overridePins: Bool
        let fromDebugOverrides: Bool

        func certificates(in store: DeviceTrustStore) -> [Certificate] {
            switch source {
            case .system: store.system
            case .user: AndroidTrust.userAdded(store)
            case .resource(_, let certificates): certificates
            }
        }

        /// `findBySubjectAndPublicKey`: the same subject and key, whatever the other bytes.
        func contains(_ certificate: Certificate, in store: DeviceTrustStore) -> Bool {
            certificates(in: store).contains { $0.subject == certificate.subject && $0.publicKeyInfo == certificate.publicKeyInfo }
        }

        /// "system", "user (overridePins)", "@raw/bank_ca from debug-overrides".
        var phrase: String {
            source.src + (overridePins ? " with overridePins" : "") + (fromDebugOverrides ? " from debug-overrides" : "")
        }
    }

    /// The config `ApplicationConfig.getConfigForHostname` returns, with every inherited value filled in.
    struct ResolvedConfig {
        let host: String
        /// "the domain-config for 'bank.test' and its subdomains", "the base-config", "the platform default".
        let origin: String
        let anchors: [Anchor]
        let anchorsOrigin: String
        let pinSet: NetworkSecurityConfig.PinSet?
        let cleartextTrafficPermitted: Bool
        let cleartextOrigin: String
        let transparency: Transparency

        var anchorList: String { anchors.map(\.phrase).joined(separator: ", ") }

        func summary(host: String) -> String {
            let pins =
                pinSet.map { set in
                    "a pin-set of \(set.pins.count) pin\(set.pins.count == 1 ? "" : "s")"
                        + (set.expiration.map { ", expiring \(AndroidNetworkSecurityClient.day($0))" } ?? ", with no expiration")
                } ?? "no pin-set"
            return "'\(host)' is governed by \(origin): trust anchors \(anchorList) (\(anchorsOrigin)); \(pins)"
        }
    }

    /// Whether the config requires Certificate Transparency for the host (`isCertificateTransparencyVerificationRequired`), and why.
    struct Transparency {
        let required: Bool
        /// "<certificateTransparency enabled="true"> in the base-config", …
        let reason: String
        /// True when nothing in the file changes what a target before API 37 gets anyway (no CT): the trace says nothing then.
        let isOldDefault: Bool

        /// The step once the chain reached a trust anchor: Conscrypt's policy when CT is required, else why it is not; nil for the old default.
        func step(path: [Certificate], trust: ServerTrust) -> (step: TraceStep, rejection: RejectionReason?)? {
            guard !isOldDefault else { return nil }
            guard required else {
                return (TraceStep(.androidCertificateTransparency, .skipped, "Certificate Transparency is not required: \(reason)"), nil)
            }
            return ConscryptTransparencyPolicy.step(
                .androidCertificateTransparency, path: path, trust: trust, why: "Certificate Transparency is required: \(reason)")
        }
    }

    /// One level of inheritance: a domain-config, the base-config or the platform default.
    private struct Level {
        let name: String
        let cleartextTrafficPermitted: Bool?
        let trustAnchors: [NetworkSecurityConfig.CertificatesEntry]?
        let pinSet: NetworkSecurityConfig.PinSet?
        var certificateTransparency: Bool? = nil
    }

    /// `Builder.getCertificateTransparencyVerificationRequired`, innermost level first: the level's own
    /// `<certificateTransparency>`; else false when its own trust anchors (with debug-overrides' in a debuggable
    /// build) include `user` or `@raw/`; else its parent's; at the top, the target's default (required from API 37).
    private func transparency(_ levels: [Level]) -> Transparency {
        let debugAnchors = debuggable ? config.debugOverrides ?? [] : []
        let first = NetworkSecurityConfig.firstSdkRequiringCertificateTransparency
        // Below API 37 an exemption changes nothing worth a step, unless it overrides an element further up.
        let exemptionMatters = targetSdkVersion >= first || levels.contains { $0.certificateTransparency != nil }
        for level in levels {
            if let enabled = level.certificateTransparency {
                return Transparency(required: enabled, reason: "<certificateTransparency enabled=\"\(enabled)\"> in \(level.name)", isOldDefault: false)
            }
            let own = level.trustAnchors.map { $0 + debugAnchors } ?? []
            if let exempt = own.first(where: \.source.disablesCertificateTransparency) {
                return Transparency(
                    required: false,
                    reason: "\(level.name) lists its own trust anchors, among them <certificates src=\"\(exempt.source.src)\">"
                        + (level.trustAnchors?.contains(exempt) == true ? "" : " from debug-overrides")
                        + ", and Android turns CT off for such a config unless a <certificateTransparency> element says otherwise",
                    isOldDefault: !exemptionMatters)
            }
        }
        // Only shown when required: below API 37 the platform default is the old default, which the trace leaves out.
        return Transparency(
            required: targetSdkVersion >= first,
            reason: "no <certificateTransparency> element applies, and the platform default for targetSdkVersion \(targetSdkVersion) requires it "
                + "(from API \(first) on)",
            isOldDefault: targetSdkVersion < first)
    }

    func resolve(host rawHost: String) -> ResolvedConfig {
        let lowered = rawHost.lowercased()
        let host = lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered

        var levels: [Level] = []
        if let match = config.domainMatch(for: host) {
            levels += match.chain.enumerated().map { index, domainConfig in
                Level(
                    name: index == 0
                        ? "the domain-config for \(match.domain.phrase)"
                        : "an enclosing domain-config (\(domainConfig.domains.map(\.phrase).joined(separator: ", ")))",
                    cleartextTrafficPermitted: domainConfig.cleartextTrafficPermitted, trustAnchors: domainConfig.trustAnchors,
                    pinSet: domainConfig.pinSet, certificateTransparency: domainConfig.certificateTransparency)
            }
        }
        if let base = config.baseConfig {
            levels.append(
                Level(
                    name: "the base-config", cleartextTrafficPermitted: base.cleartextTrafficPermitted, trustAnchors: base.trustAnchors, pinSet: nil,
                    certificateTransparency: base.certificateTransparency))
        }
        let platform = Level(
            name: "the platform default for targetSdkVersion \(targetSdkVersion)",
            cleartextTrafficPermitted: targetSdkVersion < NetworkSecurityConfig.firstSdkRefusingCleartext,
            trustAnchors: [.init(.system)] + (targetSdkVersion <= NetworkSecurityConfig.lastSdkTrustingUserCAs ? [.init(.user)] : []), pinSet: nil)
        levels.append(platform)

        // Every level has the platform default behind it, so these searches always succeed.
        let anchorLevel = levels.first { $0.trustAnchors != nil } ?? platform
        let cleartextLevel = levels.first { $0.cleartextTrafficPermitted != nil } ?? platform
        var anchors = (anchorLevel.trustAnchors ?? []).map { Anchor(source: $0.source, overridePins: $0.overridePins ?? false, fromDebugOverrides: false) }
        var anchorsOrigin = anchorLevel.name == levels[0].name ? "set there" : "inherited from \(anchorLevel.name)"
        if debuggable, let debug = config.debugOverrides, !debug.isEmpty {
            anchors += debug.map { Anchor(source: $0.source, overridePins: $0.overridePins ?? true, fromDebugOverrides: true) }
            anchorsOrigin += ", plus debug-overrides because the app is debuggable"
        }
        return ResolvedConfig(
            host: host, origin: levels[0].name, anchors: anchors, anchorsOrigin: anchorsOrigin,
            pinSet: levels.lazy.compactMap(\.pinSet).first, cleartextTrafficPermitted: cleartextLevel.cleartextTrafficPermitted ?? false,
            cleartextOrigin: cleartextLevel.name == levels[0].name ? "set by \(cleartextLevel.name)" : "inherited from \(cleartextLevel.name)",
            transparency: transparency(levels))
    }
}
