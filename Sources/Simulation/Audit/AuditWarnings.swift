import Foundation
import Policies

extension AuditConfiguration {
    /// What a reviewer would raise from the files alone, at `clock`; the pin warnings that need a host's
    /// world (no backup pin, a pin that matches nothing) come from `Audit.pinWarnings`.
    func warnings(at clock: Date) -> [Audit.Warning] {
        var warnings: [Audit.Warning] = []
        func warn(_ kind: Audit.Warning.Kind, _ message: String) { warnings.append(Audit.Warning(kind: kind, message: message)) }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let plist = infoPlist {
            let file = plist.file
            for key in plist.value.unmodelledKeys {
                warn(.unmodelledKey, "\(file): \(key) is an ATS key mitmsim does not model; the audit runs as if it were absent")
            }
            if plist.value.ats.allowsArbitraryLoads {
                warn(
                    .atsDisablesTrust,
                    "\(file): NSAllowsArbitraryLoads is YES: ATS no longer requires the system to trust the chain (nor https://) for any host "
                        + "its exception domains leave out")
            }
            for (domain, exception) in plist.value.ats.exceptionDomains.sorted(by: { $0.key < $1.key }) where exception.allowsInsecureHTTPLoads {
                warn(
                    .atsDisablesTrust,
                    "\(file): NSExceptionDomains.\(domain).NSExceptionAllowsInsecureHTTPLoads is YES: ATS no longer requires the system to trust "
                        + "the chain of \(domain) (and allows http://)")
            }
            for (domain, entry) in plist.value.trustKit?.pinnedDomains.sorted(by: { $0.key < $1.key }) ?? [] {
                if !entry.enforcePinning {
                    warn(.reportOnly, "\(file): TSKPinnedDomains.\(domain).TSKEnforcePinning is NO: a pin failure is only reported, the connection goes on")
                }
                if let written = entry.expirationDate, let expiration = entry.expiration, expiration <= clock {
                    warn(
                        .expiredPins,
                        "\(file): TSKPinnedDomains.\(domain).TSKExpirationDate \(written) has passed: TrustKit no longer pins \(domain)")
                }
            }
        }
        if let nsc = networkSecurityConfig {
            let file = nsc.file
            let config = nsc.value
            func anchors(_ anchors: [NetworkSecurityConfig.CertificatesEntry]?, _ place: String, debug: Bool) {
                for anchor in anchors ?? [] where anchor.source == .user {
                    if anchor.overridePins == true {
                        warn(
                            .overridePinsOnUserAnchors,
                            "\(file): \(place) trusts user-installed CAs with overridePins=\"true\": a CA the user installs skips the pins"
                                + (debug ? " (debuggable builds only)" : ""))
                    } else if !debug {
                        warn(.userAnchors, "\(file): \(place) trusts user-installed CAs: a CA the user is talked into installing is trusted")
                    }
                }
            }
            anchors(config.baseConfig?.trustAnchors, "<base-config>", debug: false)
            for configuration in config.allDomainConfigs {
                let place = "<domain-config> of \(configuration.domains.map(\.name).joined(separator: ", "))"
                anchors(configuration.trustAnchors, place, debug: false)
                if let expiration = configuration.pinSet?.expiration, expiration <= clock {
                    warn(.expiredPins, "\(file): the pin-set of \(place) expired on \(day.string(from: expiration)): Android no longer pins it")
                }
            }
            anchors(config.debugOverrides, "<debug-overrides>", debug: true)
            if targetSDK <= 23, config.baseConfig?.trustAnchors == nil {
                warn(
                    .userAnchors,
                    "\(file): targetSdkVersion \(targetSDK) with no <trust-anchors> in <base-config>: Android trusts user-installed CAs by default (24 and later do not)"
                )
            }
        }
        if let af = afnetworking {
            let file = af.file
            let settings = af.value
            if settings.allowInvalidCertificates {
                warn(.allowInvalidCertificates, "\(file): allowInvalidCertificates is YES: AFSecurityPolicy accepts chains the system does not trust")
            }
            if settings.version.hasValidatesDomainName, !settings.validatesDomainName {
                warn(.validatesDomainNameOff, "\(file): validatesDomainName is NO: a certificate for another host is accepted")
            }
            if settings.challengeHandler == .acceptAll {
                warn(.acceptAllHandler, "\(file): challengeHandler acceptAll answers every challenge with UseCredential: nothing is evaluated")
            }
            if settings.pinningMode != .none, settings.pinnedCertificates.isEmpty {
                warn(.pinningWithoutPins, "\(file): SSLPinningMode \(settings.pinningMode.rawValue) with no pinnedCertificates pins nothing")
            }
        }
        return warnings
    }
}
