import Foundation
import PKI
import Testing

/// Each chain is judged twice: by the `openssl verify` command, an oracle that shares none of our code above
/// libcrypto, and by `ServerTrust`. Where Apple's SecTrust answers otherwise than OpenSSL, the case says why,
/// and only there may the two verdicts differ; a verdict that changes, or a difference without a reason, fails.
struct OpenSSLDifferentialTests {
    @Test(arguments: Self.cases)
    func bothVerifiersJudgeTheChainAsTheCaseSays(_ differential: Differential) throws {
        let judged = try differential.judged()
        let openSSL = try Self.openSSLVerify(judged)
        let ours = judged.serverTrust.evaluate().failures.map(\.kind.code)

        #expect(openSSL.firstError == differential.openSSL, "openssl verify said:\n\(openSSL.output)")
        #expect((openSSL.status == 0) == (differential.openSSL == nil), "exit status \(openSSL.status):\n\(openSSL.output)")
        #expect(ours == differential.ours)
        #expect(differential.differs == ((differential.openSSL == nil) != differential.ours.isEmpty), "a difference needs a why, and only a difference")
    }

    /// Runs `openssl verify` on the same facts: anchors as -CAfile (a partial chain once the app set them),
    /// the sent issuers as -untrusted, the time, the SSL server purpose and the host.
    static func openSSLVerify(_ judged: Judged) throws -> (status: Int32, firstError: Int32?, output: String) {
        let directory = TemporaryDirectory()
        var arguments = [
            "verify", "-attime", String(Int(clock.timeIntervalSince1970)), "-purpose", "sslserver", "-no-CApath", "-no-CAstore",
        ]
        let anchors = judged.appAnchors ?? judged.device.anchors
        if anchors.isEmpty {
            arguments.append("-no-CAfile")
        } else {
            try Certificate.writeBundle(anchors, to: directory.file("anchors.pem"))
            arguments += ["-CAfile", directory.file("anchors.pem")]
        }
        if judged.appAnchors != nil { arguments.append("-partial_chain") }
        // A certificate installed without full trust is on the device: a path reaches it, and it anchors nothing.
        let reachable = Array(judged.chain.dropFirst()) + (judged.appAnchors == nil ? judged.device.installedWithoutFullTrust : [])
        if !reachable.isEmpty {
            try Certificate.writeBundle(reachable, to: directory.file("untrusted.pem"))
            arguments += ["-untrusted", directory.file("untrusted.pem")]
        }
        arguments += [judged.openSSLReadsHostAsAddress ? "-verify_ip" : "-verify_hostname", judged.host]
        try judged.chain[0].write(to: directory.file("leaf.pem"))
        let (status, output) = try openssl(arguments + [directory.file("leaf.pem")])
        // The CLI prints "error 10 at 0 depth lookup: certificate has expired" for each error, first one first.
        let firstError = output.split(separator: "\n").lazy.compactMap { line -> Int32? in
            guard line.hasPrefix("error "), line.contains(" at ") else { return nil }
            return Int32(line.dropFirst("error ".count).prefix { $0.isNumber })
        }.first
        return (status, firstError, output)
    }
}

/// A chain and the facts it is judged by, the same for both verifiers.
struct Judged {
    /// As the server sends it, leaf first.
    var chain: [Certificate]
    var device = DeviceTrustStore()
    /// The app's anchors (SecTrustSetAnchorCertificates, as AFNetworking's certificate pinning sets them), or nil.
    var appAnchors: [Certificate]?
    var host = "bank.test"
    /// True when OpenSSL reads the host as an IP address, as `SSL_set1_host` does in a TLS client: checked with -verify_ip.
    var openSSLReadsHostAsAddress = false
    var platform = Platform.iOS13

    func on(_ platform: Platform) -> Judged {
        var copy = self
        copy.platform = platform
        return copy
    }

    var serverTrust: ServerTrust {
        var trust = ServerTrust(certificates: chain, deviceTrustStore: device, policy: .ssl(host: host), verifyDate: clock, platform: platform)
        if let appAnchors { trust.setAnchorCertificates(appAnchors) }
        return trust
    }
}

/// One row of the table: what `openssl verify` and `ServerTrust` must answer, and why they differ if they do.
struct Differential: Sendable, CustomTestStringConvertible {
    let name: String
    /// OpenSSL's first error number (`X509_V_ERR_*`), or nil when it trusts the chain.
    let openSSL: Int32?
    /// Our failure codes in order; empty when we trust the chain.
    let ours: [String]
    /// What Apple's SecTrust does that OpenSSL does not; nil when the two agree.
    let why: String?
    let judged: @Sendable () throws -> Judged

    var differs: Bool { why != nil }
    var testDescription: String { name }

    static func agree(_ name: String, openSSL: Int32?, ours: [String], _ judged: @escaping @Sendable () throws -> Judged) -> Differential {
        Differential(name: name, openSSL: openSSL, ours: ours, why: nil, judged: judged)
    }

    static func differ(
        _ name: String, openSSL: Int32?, ours: [String], why: String, _ judged: @escaping @Sendable () throws -> Judged
    ) -> Differential {
        Differential(name: name, openSSL: openSSL, ours: ours, why: why, judged: judged)
    }
}

extension OpenSSLDifferentialTests {
    // OpenSSL's numbers, as `openssl verify` prints them.
    static let signatureFailure: Int32 = 7
    static let expired: Int32 = 10
    static let unableToGetIssuerLocally: Int32 = 20
    static let selfSignedInChain: Int32 = 19
    static let pathLengthExceeded: Int32 = 25
    static let invalidPurpose: Int32 = 26
    static let permittedViolation: Int32 = 47
    static let hostnameMismatch: Int32 = 62

    static let cases: [Differential] = [
        .agree("a valid chain to a root built into iOS", openSSL: nil, ours: []) {
            let (root, intermediate, leaf) = try Fixture.chain()
            return Judged(chain: [leaf, intermediate], device: DeviceTrustStore(system: [root]))
        },
        .agree("an expired leaf", openSSL: expired, ours: ["expired"]) {
            let root = try Fixture.authority("Root")
            let leaf = try Fixture.leaf(notAfter: clock.addingTimeInterval(-3_600), signedBy: root)
            return Judged(chain: [leaf], device: DeviceTrustStore(system: [root.certificate]))
        },
        .agree("a root nobody trusts, sent by the server", openSSL: selfSignedInChain, ours: ["untrustedRoot"]) {
            let (root, intermediate, leaf) = try Fixture.chain()
            return Judged(chain: [leaf, intermediate, root])
        },
        .agree("a leaf for another host", openSSL: hostnameMismatch, ours: ["hostnameMismatch"]) {
            let (root, intermediate, leaf) = try Fixture.chain()
            return Judged(chain: [leaf, intermediate], device: DeviceTrustStore(system: [root]), host: "other.test")
        },
        .agree("an authority with pathlen 0 above another authority", openSSL: pathLengthExceeded, ours: ["pathLengthExceeded"]) {
            let root = try Fixture.authority("Root")
            let intermediate = try Fixture.authority("Intermediate", pathLength: 0, signedBy: root)
            let subordinate = try Fixture.authority("Subordinate", signedBy: intermediate)
            let leaf = try Fixture.leaf(signedBy: subordinate)
            return Judged(chain: [leaf, subordinate.certificate, intermediate.certificate], device: DeviceTrustStore(system: [root.certificate]))
        },
        .agree("a leaf outside its authority's permitted names", openSSL: permittedViolation, ours: ["nameConstraintViolation"]) {
            let root = try Fixture.authority("Root")
            var spec = CertificateSpec.authority(label: "Constrained CA", commonName: "Constrained CA", notBefore: Fixture.start, notAfter: Fixture.end)
            spec.nameConstraints = NameConstraints(permittedDNSNames: ["shop.test"])
            let constrained = try factory.makeIdentity(spec, signedBy: root)
            let leaf = try Fixture.leaf(signedBy: constrained)
            return Judged(chain: [leaf, constrained.certificate], device: DeviceTrustStore(system: [root.certificate]))
        },
        .agree("a wildcard over the last two labels (*.test for bank.test)", openSSL: hostnameMismatch, ours: ["hostnameMismatch"]) {
            let root = try Fixture.authority("Root")
            return Judged(chain: [try Fixture.leaf(dnsNames: ["*.test"], signedBy: root)], device: DeviceTrustStore(system: [root.certificate]))
        },
        .agree(
            "a wildcard just above a public suffix (*.co.uk for bank.co.uk: Apple refuses it by a public-suffix list mitmsim does not have)",
            openSSL: nil, ours: []
        ) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(dnsNames: ["*.co.uk"], signedBy: root)], device: DeviceTrustStore(system: [root.certificate]), host: "bank.co.uk")
        },
        .agree("an IPv4 host written with leading zeros (127.000.000.001), 127.0.0.1 in the SAN", openSSL: nil, ours: []) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(dnsNames: [], ipAddresses: ["127.0.0.1"], signedBy: root)], device: DeviceTrustStore(system: [root.certificate]),
                host: "127.000.000.001", openSSLReadsHostAsAddress: true)
        },
        .agree(
            "a root installed without full trust (OpenSSL is given it as -untrusted: on the device, anchoring nothing)", openSSL: selfSignedInChain,
            ours: ["installedWithoutFullTrust"]
        ) {
            let (root, intermediate, leaf) = try Fixture.chain()
            return Judged(chain: [leaf, intermediate], device: DeviceTrustStore(installedWithoutFullTrust: [root]))
        },
        .agree("a leaf valid 500 days under a root the user installed (825 days allowed)", openSSL: nil, ours: []) {
            let root = try Fixture.authority("Root")
            return Judged(chain: [try Fixture.leaf(days: 500, signedBy: root)], device: DeviceTrustStore(userInstalled: [root.certificate]))
        },
        .agree("a leaf without extended key usage under a root the user installed", openSSL: nil, ours: []) {
            let root = try Fixture.authority("Root")
            return Judged(chain: [try Fixture.leaf(usages: nil, signedBy: root)], device: DeviceTrustStore(userInstalled: [root.certificate]))
        },
        .agree("a leaf valid 500 days whose pinned root is not built into iOS (825 days allowed)", openSSL: nil, ours: []) {
            let root = try Fixture.authority("Root")
            return Judged(chain: [try Fixture.leaf(days: 500, signedBy: root)], appAnchors: [root.certificate])
        },

        .differ(
            "a pinned leaf above an expired intermediate", openSSL: expired, ours: [],
            why: "SecTrust ends the path at the first anchor from the leaf up, so nothing above a pinned leaf is checked; "
                + "OpenSSL's partial chain keeps the sent issuers above it and checks them"
        ) {
            let root = try Fixture.authority("Root")
            let intermediate = try Fixture.authority("Expired Intermediate", notAfter: clock.addingTimeInterval(-3_600), signedBy: root)
            let leaf = try Fixture.leaf(signedBy: intermediate)
            return Judged(chain: [leaf, intermediate.certificate, root.certificate], appAnchors: [leaf])
        },
        .differ(
            "an intermediate whose outer RSA AlgorithmIdentifier has no parameters and whose inner one has NULL",
            openSSL: signatureFailure, ours: [],
            why: "Apple takes absent and NULL parameters for the same RSA PKCS#1 v1.5 algorithm, as many real certificates need; "
                + "OpenSSL wants the two AlgorithmIdentifiers byte for byte equal and fails the signature"
        ) {
            let root = try Fixture.authority("Root", keyType: .rsa2048)
            let issued = try Fixture.authority("Intermediate", signedBy: root)
            let intermediate = try #require(
                try Certificate.parseAll(DER.withoutOuterAlgorithmParameters(issued.certificate.der), source: "edited").first)
            let leaf = try Fixture.leaf(signedBy: issued)
            return Judged(chain: [leaf, intermediate], device: DeviceTrustStore(system: [root.certificate]))
        },
        .differ(
            "a root whose only extended key usage is anyExtendedKeyUsage", openSSL: invalidPurpose, ours: [],
            why: "Apple lets a CA whose extended key usage includes any purpose issue a TLS server chain; OpenSSL wants serverAuth itself"
        ) {
            var spec = CertificateSpec.authority(label: "Any Purpose Root", commonName: "Any Purpose Root", notBefore: Fixture.start, notAfter: Fixture.end)
            spec.extendedKeyUsage = [.anyExtendedKeyUsage]
            let root = try factory.makeIdentity(spec)
            let intermediate = try Fixture.authority("Intermediate", signedBy: root)
            let leaf = try Fixture.leaf(signedBy: intermediate)
            return Judged(chain: [leaf, intermediate.certificate], device: DeviceTrustStore(system: [root.certificate]))
        },
        .differ(
            "an empty host name (-verify_hostname \"\")", openSSL: nil, ours: ["hostnameMismatch"],
            why: "Apple matches an empty host against the SAN, where nothing names it; OpenSSL takes an empty host for no host and checks none"
        ) {
            let (root, intermediate, leaf) = try Fixture.chain()
            return Judged(chain: [leaf, intermediate], device: DeviceTrustStore(system: [root]), host: "")
        },
        .differ(
            "a partial wildcard (b*.bank.test for bb.bank.test)", openSSL: nil, ours: ["hostnameMismatch"],
            why: "Apple's wildcard is a whole leftmost label, so b*.bank.test names nothing; OpenSSL lets * stand for part of a label"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(dnsNames: ["b*.bank.test"], signedBy: root)], device: DeviceTrustStore(system: [root.certificate]),
                host: "bb.bank.test")
        },
        .differ(
            "a wildcard standing for a label with an underscore (*.bank.test for my_host.bank.test)", openSSL: hostnameMismatch, ours: [],
            why: "Apple's wildcard stands for any one label; OpenSSL's only for letters, digits and hyphens"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(dnsNames: ["*.bank.test"], signedBy: root)], device: DeviceTrustStore(system: [root.certificate]),
                host: "my_host.bank.test")
        },
        .differ(
            "a host with a trailing dot (bank.test.)", openSSL: hostnameMismatch, ours: [],
            why: "Apple ignores one trailing dot on the host; OpenSSL compares the host as written"
        ) {
            let (root, intermediate, leaf) = try Fixture.chain()
            return Judged(chain: [leaf, intermediate], device: DeviceTrustStore(system: [root]), host: "bank.test.")
        },
        .differ(
            "a SAN DNS name that is not a host name (bank.test. for the host bank.test.)", openSSL: nil, ours: ["hostnameMismatch"],
            why: "Apple skips a SAN name not written as a host name (here its trailing dot); OpenSSL compares it as written"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(dnsNames: ["bank.test."], signedBy: root)], device: DeviceTrustStore(system: [root.certificate]),
                host: "bank.test.")
        },
        .differ(
            "a host starting with a dot (.bank.test), www.bank.test in the SAN", openSSL: nil, ours: ["hostnameMismatch"],
            why: "Apple reads a host whose first label is empty, which no name but a wildcard could stand for; "
                + "OpenSSL reads a leading dot as any name under bank.test"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(dnsNames: ["www.bank.test"], signedBy: root)], device: DeviceTrustStore(system: [root.certificate]),
                host: ".bank.test")
        },
        .differ(
            "an IPv6 host in brackets ([::1]), ::1 in the SAN", openSSL: hostnameMismatch, ours: [],
            why: "Apple reads [::1] as the address ::1; OpenSSL (SSL_set1_host in a TLS client) finds no address in it and compares it as a DNS name"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(dnsNames: [], ipAddresses: ["::1"], signedBy: root)], device: DeviceTrustStore(system: [root.certificate]),
                host: "[::1]")
        },
        .differ(
            "an IPv6 host with an IPv4 part (::ffff:127.0.0.1), the same address in the SAN", openSSL: nil, ours: ["hostnameMismatch"],
            why: "Apple does not read ::ffff:127.0.0.1 as an address, and no DNS name matches it; OpenSSL reads the address and matches it"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(dnsNames: [], ipAddresses: ["::ffff:127.0.0.1"], signedBy: root)],
                device: DeviceTrustStore(system: [root.certificate]), host: "::ffff:127.0.0.1", openSSLReadsHostAsAddress: true)
        },
        .differ(
            "an RSA-1024 leaf, iOS 13", openSSL: nil, ours: ["weakKey"],
            why: "iOS 13 refuses RSA keys under 2048 bits in a TLS chain; openssl verify sets no security level by default "
                + "(with -auth_level 2, the level of an Ubuntu TLS client, it refuses the key too)"
        ) { try Fixture.rsa1024Leaf() },
        .differ(
            "a SHA-1-signed intermediate, iOS 13", openSSL: nil, ours: ["weakSignatureDigest"],
            why: "iOS 13 refuses SHA-1 signatures in a TLS chain (self-signed certificates exempt); openssl verify sets no security level "
                + "by default (with -auth_level 1 or more it refuses SHA-1 too)"
        ) { try Fixture.sha1Intermediate() },
        .differ(
            "a ten-year self-signed leaf pinned as an app anchor, iOS 13", openSSL: nil, ours: ["validityPeriodTooLong"],
            why: "iOS 13 allows a leaf issued after 1 July 2019 at most 825 days when its chain ends at an app anchor; OpenSSL has no maximum"
        ) { try Fixture.tenYearSelfSignedPin() },
        .differ(
            "a leaf without extended key usage at an app anchor, issued after 2019, iOS 13", openSSL: nil, ours: ["missingServerAuthEKU"],
            why: "iOS 13 requires serverAuth on a leaf issued after 1 July 2019 unless its chain ends at a root the user installed; "
                + "OpenSSL accepts a leaf with no extended key usage for any purpose"
        ) { try Fixture.leafWithoutUsagesAtAppAnchor() },
        .differ(
            "a leaf valid 500 days under a root built into iOS, iOS 13", openSSL: nil, ours: ["validityPeriodTooLong"],
            why: "iOS 13 allows a leaf issued on or after 1 September 2020 at most 398 days when its chain ends at a root built into iOS; "
                + "OpenSSL has no maximum"
        ) { try Fixture.leafValid500DaysUnderSystemRoot() },
        .differ(
            "a leaf valid 900 days under a root the user installed, iOS 13", openSSL: nil, ours: ["validityPeriodTooLong"],
            why: "iOS 13 allows a leaf issued after 1 July 2019 at most 825 days when its chain ends at a root the user installed; "
                + "OpenSSL has no maximum"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(chain: [try Fixture.leaf(days: 900, signedBy: root)], device: DeviceTrustStore(userInstalled: [root.certificate]))
        },
        .differ(
            "a leaf without extended key usage under a root built into iOS, iOS 13", openSSL: nil, ours: ["missingServerAuthEKU"],
            why: "iOS 13 requires serverAuth on every leaf whose chain ends at a root built into iOS; OpenSSL accepts a leaf with no extended key usage"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(chain: [try Fixture.leaf(usages: nil, signedBy: root)], device: DeviceTrustStore(system: [root.certificate]))
        },
        .differ(
            "a leaf valid 500 days whose pinned root is also built into iOS, iOS 13", openSSL: nil, ours: ["validityPeriodTooLong"],
            why: "Apple asks where the device knows the path's root from, so a pinned system root still brings the 398-day maximum; "
                + "OpenSSL has no maximum"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(
                chain: [try Fixture.leaf(days: 500, signedBy: root)], device: DeviceTrustStore(system: [root.certificate]), appAnchors: [root.certificate])
        },
        .differ(
            "a DSA-2048 leaf", openSSL: nil, ours: ["weakKey"],
            why: "Apple counts every key that is not RSA, EC or EdDSA as weak under every policy (SecCertificateIsWeakKey); "
                + "OpenSSL sets no rule on a key's algorithm"
        ) {
            let root = try Fixture.authority("Root")
            let leaf = try factory.issue(Fixture.leafSpec(), key: try dsaKey(), signedBy: root)
            return Judged(chain: [leaf], device: DeviceTrustStore(system: [root.certificate]))
        },
        .differ(
            "a DSA-2048 root", openSSL: nil, ours: ["weakKey"],
            why: "Apple counts every key that is not RSA, EC or EdDSA as weak, an anchor's too (SecPVCParentCertificateChecks); "
                + "OpenSSL sets no rule on a key's algorithm"
        ) {
            let spec = CertificateSpec.authority(label: "DSA Root", commonName: "DSA Root", notBefore: Fixture.start, notAfter: Fixture.end)
            let key = try dsaKey()
            let root = Identity(certificate: try factory.issue(spec, key: key), privateKey: key)
            return Judged(chain: [try Fixture.leaf(signedBy: root)], device: DeviceTrustStore(system: [root.certificate]))
        },
        .differ(
            "a v3 root without basicConstraints (its keyUsage allows keyCertSign)", openSSL: nil, ours: ["issuerNotCA"],
            why: "Apple's checks of every certificate above the leaf, the anchor included, refuse a v3 certificate without basicConstraints "
                + "(SecPVCParentCertificateChecks); OpenSSL lets a trust anchor whose keyUsage allows keyCertSign stand in for a CA"
        ) { try Fixture.rootWithoutBasicConstraints() },
        .differ(
            "a leaf with an empty subject and a SAN not marked critical", openSSL: nil, ours: ["emptySubject"],
            why: "Apple accepts an empty subject only on a leaf that is not a CA and whose subjectAltName is critical "
                + "(SecPolicyCheckCertNonEmptySubject); OpenSSL checks that only in its strict mode"
        ) {
            let root = try Fixture.authority("Root")
            var spec = Fixture.leafSpec()
            spec.subject = DistinguishedName(commonName: nil)
            return Judged(chain: [try factory.makeIdentity(spec, signedBy: root).certificate], device: DeviceTrustStore(system: [root.certificate]))
        },
        .differ(
            "a leaf whose authorityInfoAccess cannot be parsed", openSSL: nil, ours: ["invalidExtension"],
            why: "Apple refuses a certificate with an extension it knows but cannot parse (SecPolicyCheckCertUnparseableExtension, "
                + "Security-60157 on); OpenSSL never reads an authorityInfoAccess while it verifies"
        ) { try Fixture.leafWithUnparseableAuthorityInfoAccess() },
        .differ(
            "a CA certificate as the leaf (CA:TRUE, keyUsage keyCertSign only) under a root the user installed", openSSL: invalidPurpose, ours: [],
            why: "Apple's SSL policy sets no keyUsage rule and lets a leaf with no extended key usage serve TLS, and the serverAuth rule "
                + "spares a chain at a root the user installed; OpenSSL's sslserver purpose wants digitalSignature or keyEncipherment"
        ) { try Fixture.authorityAsLeaf(pathLength: nil) },
        .differ(
            "a leaf with CA:TRUE and pathlen 0 under a root the user installed", openSSL: invalidPurpose, ours: [],
            why: "a pathlen constrains only the authorities below a certificate, and Apple's SSL policy sets no keyUsage rule; "
                + "OpenSSL's sslserver purpose refuses the leaf's keyUsage"
        ) { try Fixture.authorityAsLeaf(pathLength: 0) },
        .differ(
            "a leaf whose notAfter is the evaluation time", openSSL: expired, ours: [],
            why: "Apple (SecCertificateIsValid) and RFC 5280 count a certificate valid up to and including its notAfter; "
                + "OpenSSL counts it expired at that very second"
        ) {
            let root = try Fixture.authority("Root")
            return Judged(chain: [try Fixture.leaf(notAfter: clock, signedBy: root)], device: DeviceTrustStore(system: [root.certificate]))
        },
        .differ(
            "two intermediates with one name and key, the one sent first constrained to other names", openSSL: permittedViolation, ours: [],
            why: "Apple's path builder rejects the path that breaks the name constraint and goes on to the other intermediate; "
                + "OpenSSL verifies the first path it builds"
        ) {
            let root = try Fixture.authority("Root")
            let (constrained, plain, key) = try Fixture.twinIntermediates(signedBy: root, root) {
                $0.nameConstraints = NameConstraints(permittedDNSNames: ["shop.test"])
            }
            let leaf = try factory.makeIdentity(Fixture.leafSpec(), signedBy: Identity(certificate: plain, privateKey: key)).certificate
            return Judged(chain: [leaf, constrained, plain], device: DeviceTrustStore(system: [root.certificate]))
        },
        .differ(
            "two intermediates with one name and key, the one sent first issued by a CA nobody sent or trusts", openSSL: unableToGetIssuerLocally,
            ours: [],
            why: "Apple's path builder tries the other intermediate, which leads to a trusted root; OpenSSL builds the path through the first "
                + "and stops where its issuer is missing"
        ) {
            let root = try Fixture.authority("Root")
            let stranger = try Fixture.authority("Stranger Root")
            let (orphan, plain, key) = try Fixture.twinIntermediates(signedBy: stranger, root) { _ in }
            let leaf = try factory.makeIdentity(Fixture.leafSpec(), signedBy: Identity(certificate: plain, privateKey: key)).certificate
            return Judged(chain: [leaf, orphan, plain], device: DeviceTrustStore(system: [root.certificate]))
        },

        .agree("a v3 root without basicConstraints, iOS 12 (its anchors were spared the check)", openSSL: nil, ours: []) {
            try Fixture.rootWithoutBasicConstraints().on(.iOS12)
        },
        .agree("a leaf whose authorityInfoAccess cannot be parsed, iOS 12", openSSL: nil, ours: []) {
            try Fixture.leafWithUnparseableAuthorityInfoAccess().on(.iOS12)
        },

        .agree("an RSA-1024 leaf, iOS 12", openSSL: nil, ours: []) { try Fixture.rsa1024Leaf().on(.iOS12) },
        .agree("a SHA-1-signed intermediate, iOS 12", openSSL: nil, ours: []) { try Fixture.sha1Intermediate().on(.iOS12) },
        .agree("a ten-year self-signed leaf pinned as an app anchor, iOS 12", openSSL: nil, ours: []) { try Fixture.tenYearSelfSignedPin().on(.iOS12) },
        .agree("a leaf without extended key usage at an app anchor, issued after 2019, iOS 12", openSSL: nil, ours: []) {
            try Fixture.leafWithoutUsagesAtAppAnchor().on(.iOS12)
        },
        .agree("a leaf valid 500 days under a root built into iOS, iOS 12", openSSL: nil, ours: []) {
            try Fixture.leafValid500DaysUnderSystemRoot().on(.iOS12)
        },
    ]
}

/// The certificates of the cases: P-256 keys unless the key is the point, valid around `clock` (2026).
private enum Fixture {
    static let start = clock.addingTimeInterval(-86_400), end = clock.addingTimeInterval(365 * 86_400)

    static func authority(
        _ name: String, pathLength: Int? = nil, notAfter: Date? = nil, keyType: KeyType = .p256, signedBy issuer: Identity? = nil
    ) throws -> Identity {
        try factory.makeIdentity(
            .authority(label: name, commonName: name, pathLength: pathLength, notBefore: start, notAfter: notAfter ?? end), keyType: keyType,
            signedBy: issuer)
    }

    /// A serverAuth leaf for `bank.test` unless told otherwise; `days` counts its validity from `start`.
    static func leaf(
        dnsNames: [String] = ["bank.test"], ipAddresses: [String] = [], usages: [ExtendedKeyUsage]? = [.serverAuth], days: Double? = nil, notAfter: Date? = nil,
        keyType: KeyType = .p256, signedBy issuer: Identity?
    ) throws -> Certificate {
        var spec = CertificateSpec.serverLeaf(
            // A leaf with no DNS name still has a subject: an empty one is a fault of its own on iOS (`emptySubject`).
            label: "leaf", commonName: dnsNames.first ?? "leaf", dnsNames: dnsNames, ipAddresses: ipAddresses, notBefore: start,
            notAfter: notAfter ?? days.map { start.addingTimeInterval($0 * 86_400) } ?? end)
        spec.extendedKeyUsage = usages
        return try factory.makeIdentity(spec, keyType: keyType, signedBy: issuer).certificate
    }

    /// The spec of `leaf(signedBy:)`, for a leaf issued with a key of the case's own.
    static func leafSpec() -> CertificateSpec {
        .serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end)
    }

    /// A root whose only extension that makes it a CA is keyUsage keyCertSign, and a leaf it issued.
    static func rootWithoutBasicConstraints() throws -> Judged {
        var spec = CertificateSpec.authority(label: "Root", commonName: "Root", notBefore: start, notAfter: end)
        spec.basicConstraints = nil
        let root = try factory.makeIdentity(spec)
        return Judged(chain: [try leaf(signedBy: root)], device: DeviceTrustStore(system: [root.certificate]))
    }

    /// A leaf re-signed by the real `openssl x509` with an authorityInfoAccess whose value is a NULL, not a SEQUENCE.
    static func leafWithUnparseableAuthorityInfoAccess() throws -> Judged {
        let root = try authority("Root")
        let directory = TemporaryDirectory()
        // `openssl x509 -CA` re-signs only a self-signed certificate, keeping its dates.
        try leaf(signedBy: nil).write(to: directory.file("leaf.pem"))
        try root.certificate.write(to: directory.file("root.pem"))
        try root.privateKey.write(to: directory.file("root.key"))
        try "[aia]\nbasicConstraints=critical,CA:FALSE\nsubjectAltName=DNS:bank.test\nextendedKeyUsage=serverAuth\n1.3.6.1.5.5.7.1.1=DER:0500\n"
            .write(toFile: directory.file("aia.cnf"), atomically: true, encoding: .utf8)
        _ = try shell(
            "cd '\(directory.path)' && openssl x509 -in leaf.pem -CA root.pem -CAkey root.key -preserve_dates -clrext -extfile aia.cnf "
                + "-extensions aia -out resigned.pem 2>&1")
        let resigned = try #require(try Certificate.loadAll(from: directory.file("resigned.pem")).first)
        return Judged(chain: [resigned], device: DeviceTrustStore(system: [root.certificate]))
    }

    /// A certificate authority for bank.test (no extended key usage) used as the leaf, under a root the user installed.
    static func authorityAsLeaf(pathLength: Int?) throws -> Judged {
        let root = try authority("Root")
        var spec = CertificateSpec.authority(label: "leaf", commonName: "bank.test", pathLength: pathLength, notBefore: start, notAfter: end)
        spec.dnsNames = ["bank.test"]
        return Judged(chain: [try factory.makeIdentity(spec, signedBy: root).certificate], device: DeviceTrustStore(userInstalled: [root.certificate]))
    }

    /// Two intermediates with the same name and key, issued by `first` and `second`; `edit` changes the first one's spec.
    static func twinIntermediates(
        signedBy first: Identity, _ second: Identity, edit: (inout CertificateSpec) -> Void
    ) throws -> (Certificate, Certificate, PrivateKey) {
        let key = try PrivateKey.generate()
        var spec = CertificateSpec.authority(label: "Intermediate", commonName: "Intermediate", notBefore: start, notAfter: end)
        let plain = try factory.issue(spec, key: key, signedBy: second)
        edit(&spec)
        return (try factory.issue(spec, key: key, signedBy: first), plain, key)
    }

    /// Root, intermediate and leaf.
    static func chain() throws -> (Certificate, Certificate, Certificate) {
        let root = try authority("Root")
        let intermediate = try authority("Intermediate", signedBy: root)
        return (root.certificate, intermediate.certificate, try leaf(signedBy: intermediate))
    }

    static func rsa1024Leaf() throws -> Judged {
        let root = try authority("Root")
        return Judged(chain: [try leaf(keyType: .rsa1024, signedBy: root)], device: DeviceTrustStore(system: [root.certificate]))
    }

    static func sha1Intermediate() throws -> Judged {
        let root = try authority("Root")
        var spec = CertificateSpec.authority(label: "SHA-1 Intermediate", commonName: "SHA-1 Intermediate", notBefore: start, notAfter: end)
        spec.signatureDigest = .sha1
        let intermediate = try factory.makeIdentity(spec, signedBy: root)
        return Judged(chain: [try leaf(signedBy: intermediate), intermediate.certificate], device: DeviceTrustStore(system: [root.certificate]))
    }

    static func tenYearSelfSignedPin() throws -> Judged {
        let pinned = try leaf(days: 3_650, signedBy: nil)
        return Judged(chain: [pinned], appAnchors: [pinned])
    }

    static func leafWithoutUsagesAtAppAnchor() throws -> Judged {
        let root = try authority("Root")
        return Judged(chain: [try leaf(usages: nil, signedBy: root)], appAnchors: [root.certificate])
    }

    static func leafValid500DaysUnderSystemRoot() throws -> Judged {
        let root = try authority("Root")
        return Judged(chain: [try leaf(days: 500, signedBy: root)], device: DeviceTrustStore(system: [root.certificate]))
    }
}
