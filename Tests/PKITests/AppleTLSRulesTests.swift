import Foundation
import PKI
import Testing

/// The rules Apple adds to a TLS chain, by the source of the anchor the path ends at and by iOS release.
struct AppleTLSRulesTests {
    static let issued = clock.addingTimeInterval(-86_400)
    static let day: TimeInterval = 86_400

    func root(_ name: String = "Root", key: KeyType = .p256) throws -> Identity {
        try factory.makeIdentity(.authority(label: name, commonName: name, notBefore: Self.issued, notAfter: Self.issued + 3_650 * Self.day), keyType: key)
    }

    func leaf(
        days: Double = 365, from start: Date = issued, key: KeyType = .p256, digest: SignatureDigest = .sha256,
        usages: [ExtendedKeyUsage]? = [.serverAuth], signedBy issuer: Identity?
    ) throws -> Identity {
        var spec = CertificateSpec.serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: start + days * Self.day)
        spec.extendedKeyUsage = usages
        spec.signatureDigest = digest
        return try factory.makeIdentity(spec, keyType: key, signedBy: issuer)
    }

    func evaluate(
        _ chain: [Identity], _ store: DeviceTrustStore, pinned: [Identity]? = nil, policy: ServerTrust.Policy = .ssl(host: "bank.test"),
        platform: Platform = .iOS13, at date: Date = clock
    ) -> TrustResult {
        var trust = ServerTrust(certificates: chain.map(\.certificate), deviceTrustStore: store, policy: policy, verifyDate: date, platform: platform)
        if let pinned { trust.setAnchorCertificates(pinned.map(\.certificate)) }
        return trust.evaluate()
    }

    func codes(_ result: TrustResult) -> [String] { result.failures.map(\.kind.code) }

    // MARK: Key sizes and signature hashes

    @Test func anRSA1024LeafIsRefusedForTLSOnIOS13ButNotOnIOS12NorByTheBasicPolicy() throws {
        let root = try root()
        let server = try leaf(key: .rsa1024, signedBy: root)
        let store = DeviceTrustStore(system: [root.certificate])

        let modern = evaluate([server], store)
        #expect(modern.failures.map(\.kind) == [.weakKey(forTLS: true)])
        #expect(modern.failures.first?.certificate == server.certificate)
        #expect(modern.failures.first?.description.contains("(RSA 1024) smaller than iOS 13 and later accept in a TLS chain") == true)
        #expect(evaluate([server], store, platform: .iOS12).isValid)
        #expect(evaluate([server], store, policy: .basicX509).isValid)
    }

    @Test func anRSA1024AuthorityAboveTheLeafIsRefusedToo() throws {
        let root = try root("Weak Root", key: .rsa1024)
        let server = try leaf(signedBy: root)

        let result = evaluate([server], DeviceTrustStore(system: [root.certificate]))

        #expect(result.failures.map(\.kind) == [.weakKey(forTLS: true)])
        #expect(result.failures.first?.certificate.label == "Weak Root")
    }

    @Test func aSHA1SignatureOnTheLeafIsRefusedForTLSButASelfSignedSHA1LeafIsNotCheckedForItsHash() throws {
        let root = try root()
        let signedWithSHA1 = try leaf(digest: .sha1, signedBy: root)
        let result = evaluate([signedWithSHA1], DeviceTrustStore(system: [root.certificate]))
        #expect(result.failures.map(\.kind) == [.weakSignatureDigest(digest: "SHA-1")])
        #expect(result.failures.first?.description == "the signature on 'leaf' uses SHA-1, which iOS 13 and later do not accept in a TLS chain")

        let selfSigned = try leaf(digest: .sha1, signedBy: nil)
        #expect(evaluate([selfSigned], DeviceTrustStore(), pinned: [selfSigned]).isValid)
    }

    // MARK: Validity maximums

    @Test func aLeafUnderARootBuiltIntoIOSMayBeValidAtMost398DaysWhenIssuedAfterSeptember2020() throws {
        let root = try root()
        let store = DeviceTrustStore(system: [root.certificate])

        #expect(evaluate([try leaf(days: 398, signedBy: root)], store).isValid)
        let tooLong = evaluate([try leaf(days: 399, signedBy: root)], store)
        #expect(tooLong.failures.map(\.kind) == [.validityPeriodTooLong(maximumDays: 398, anchor: .system)])
        #expect(evaluate([try leaf(days: 399, signedBy: root)], store, platform: .iOS12).isValid)
    }

    @Test func aLeafIssuedIn2017UnderARootBuiltIntoIOSMayBeValid39Months() throws {
        let start = date("2017-01-01T00:00:00Z")
        let root = try factory.makeIdentity(.authority(label: "Old Root", commonName: "Old Root", notBefore: start, notAfter: clock))
        let store = DeviceTrustStore(system: [root.certificate])
        let during = date("2018-01-01T00:00:00Z")

        #expect(evaluate([try leaf(days: 1_188, from: start, signedBy: root)], store, at: during).isValid)
        let tooLong = evaluate([try leaf(days: 1_189, from: start, signedBy: root)], store, at: during)
        #expect(tooLong.failures.map(\.kind) == [.validityPeriodTooLong(maximumDays: 1_188, anchor: .system)])
    }

    @Test func aTenYearSelfSignedLeafPinnedAsAnAppAnchorExceeds825Days() throws {
        let server = try leaf(days: 3_650, signedBy: nil)

        let result = evaluate([server], DeviceTrustStore(), pinned: [server])

        #expect(result.failures.map(\.kind) == [.validityPeriodTooLong(maximumDays: 825, anchor: .app)])
        #expect(
            result.failures.first?.description
                == "'leaf' is valid for 3650 days (2026-05-31 to 2036-05-28); iOS 13 and later allow at most 825 days for a leaf issued after "
                + "1 July 2019 whose chain does not end at a root built into iOS")
        let allowed = try leaf(days: 825, signedBy: nil)
        #expect(evaluate([allowed], DeviceTrustStore(), pinned: [allowed]).isValid)
        #expect(evaluate([server], DeviceTrustStore(), pinned: [server], platform: .iOS12).isValid)
        #expect(evaluate([server], DeviceTrustStore(), pinned: [server], policy: .basicX509).isValid)
    }

    @Test func aLeafIssuedBeforeJuly2019HasNoMaximumUnderAnAppAnchor() throws {
        let start = date("2019-06-01T00:00:00Z")
        let server = try leaf(days: 3_650, from: start, signedBy: nil)

        #expect(evaluate([server], DeviceTrustStore(), pinned: [server]).isValid)
    }

    @Test func aRootTheUserInstalledStillLimitsItsLeavesTo825Days() throws {
        let root = try root("Installed Root")
        let store = DeviceTrustStore(userInstalled: [root.certificate])

        #expect(evaluate([try leaf(days: 825, signedBy: root)], store).isValid)
        let tooLong = evaluate([try leaf(days: 826, signedBy: root)], store)
        #expect(tooLong.failures.map(\.kind) == [.validityPeriodTooLong(maximumDays: 825, anchor: .userInstalled)])
    }

    @Test func aLeafTheUserInstalledItselfHasNoMaximumAndNoKeySizeRule() throws {
        let server = try leaf(days: 3_650, key: .rsa1024, signedBy: nil)

        let result = evaluate([server], DeviceTrustStore(userInstalled: [server.certificate]))

        #expect(result.isValid, "\(result.failures)")
        #expect(result.anchor?.source == .userInstalled)
    }

    @Test func aPinnedRootBuiltIntoIOSIsStillJudgedAsASystemRoot() throws {
        let root = try root()
        let server = try leaf(days: 500, signedBy: root)

        let result = evaluate([server], DeviceTrustStore(system: [root.certificate]), pinned: [root])

        #expect(result.failures.map(\.kind) == [.validityPeriodTooLong(maximumDays: 398, anchor: .system)])
    }

    // MARK: serverAuth EKU

    @Test func aLeafWithoutAnyExtendedKeyUsageNeedsServerAuthUnderASystemRootOrAnAppAnchorButNotUnderAnInstalledRoot() throws {
        let root = try root()
        let server = try leaf(usages: nil, signedBy: root)

        let system = evaluate([server], DeviceTrustStore(system: [root.certificate]))
        #expect(system.failures.map(\.kind) == [.missingServerAuthEKU(anchor: .system)])
        #expect(evaluate([server], DeviceTrustStore(userInstalled: [root.certificate])).isValid)
        let app = evaluate([server], DeviceTrustStore(), pinned: [server])
        #expect(app.failures.map(\.kind) == [.missingServerAuthEKU(anchor: .app)])
        #expect(evaluate([server], DeviceTrustStore(system: [root.certificate]), platform: .iOS12).isValid)
    }

    @Test func aLeafWithoutServerAuthIssuedBeforeJuly2019PassesUnderAnAppAnchor() throws {
        let server = try leaf(from: date("2019-06-01T00:00:00Z"), usages: nil, signedBy: nil)

        #expect(evaluate([server], DeviceTrustStore(), pinned: [server], at: date("2019-12-01T00:00:00Z")).isValid)
    }

    // MARK: Anchor sources

    @Test func aRootInstalledWithoutFullTrustAnchorsNothingAndTheFailureSaysWhy() throws {
        let root = try root("Attacker CA")
        let server = try leaf(signedBy: root)
        let store = DeviceTrustStore(installedWithoutFullTrust: [root.certificate])

        for sent in [[server], [server, root]] {
            let result = evaluate(sent, store)
            #expect(result.failures.map(\.kind) == [.installedWithoutFullTrust], "sent \(sent.count)")
            #expect(result.failures.first?.certificate == root.certificate)
        }
        #expect(evaluate([server], DeviceTrustStore(userInstalled: [root.certificate])).isValid)
    }

    @Test func aValidPathNamesTheSourceOfItsAnchor() throws {
        let root = try root()
        let server = try leaf(signedBy: root)

        #expect(evaluate([server], DeviceTrustStore(system: [root.certificate])).anchorDescription == "'Root', a root built into iOS")
        #expect(
            evaluate([server], DeviceTrustStore(userInstalled: [root.certificate])).anchorDescription
                == "'Root', a root the user installed and fully trusted")
        #expect(
            evaluate([server], DeviceTrustStore(), pinned: [server]).anchorDescription
                == "'leaf', an app anchor (SecTrustSetAnchorCertificates, as pinning sets it)")
        #expect(evaluate([server], DeviceTrustStore()).anchor == nil)
    }
}

/// Today's iOS (16 on, `set_ssl_validity_periods`) against iOS 13–15 (`SecPolicyCheckSystemTrustValidityPeriodMaximums`).
struct ValidityPeriodsByReleaseTests {
    static let day: TimeInterval = 86_400

    func leaf(from start: Date, days: Double, signedBy issuer: Identity?) throws -> Identity {
        try factory.makeIdentity(.serverLeaf(label: "leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: start + days * Self.day), signedBy: issuer)
    }

    func failures(_ server: Identity, system root: Identity, platform: Platform? = nil, at date: Date) -> [TrustFailure] {
        let store = DeviceTrustStore(system: [root.certificate])
        let trust =
            platform.map {
                ServerTrust(certificates: [server.certificate], deviceTrustStore: store, policy: .ssl(host: "bank.test"), verifyDate: date, platform: $0)
            }
            ?? ServerTrust(certificates: [server.certificate], deviceTrustStore: store, policy: .ssl(host: "bank.test"), verifyDate: date)
        return trust.evaluate().failures
    }

    @Test func todaysIOSByDefaultSetsNoMaximumForALeafIssuedBeforeMarch2018UnderARootBuiltIntoIOS() throws {
        let start = date("2017-01-01T00:00:00Z")
        let root = try factory.makeIdentity(.authority(label: "Old Root", commonName: "Old Root", notBefore: start, notAfter: clock))
        let server = try leaf(from: start, days: 1_500, signedBy: root)
        let during = date("2018-01-01T00:00:00Z")

        #expect(failures(server, system: root, at: during).isEmpty)
        #expect(failures(server, system: root, platform: .iOS16, at: during).isEmpty)
        let older = failures(server, system: root, platform: .iOS13, at: during)
        #expect(older.map(\.kind) == [.validityPeriodTooLong(maximumDays: 1_188, anchor: .system)])
        #expect(
            older.first?.description
                == "'leaf' is valid for 1500 days (2017-01-01 to 2021-02-09); iOS 13 to 15.4 allow at most 1188 days for a leaf "
                + "issued from 1 July 2016 to 28 February 2018 whose chain ends at a root built into iOS")
    }

    @Test func bothReleasesHoldALeafIssuedSinceMarch2018To825DaysAndSinceSeptember2020To398() throws {
        let start = date("2018-03-01T00:00:00Z")
        let root = try factory.makeIdentity(.authority(label: "Old Root", commonName: "Old Root", notBefore: start, notAfter: clock))
        for platform in [Platform.iOS16, .iOS13] {
            let long = failures(try leaf(from: start, days: 826, signedBy: root), system: root, platform: platform, at: start + Self.day)
            #expect(long.map(\.kind) == [.validityPeriodTooLong(maximumDays: 825, anchor: .system)])
            let recent = try leaf(from: date("2020-09-01T00:00:00Z"), days: 399, signedBy: root)
            let refused = failures(recent, system: root, platform: platform, at: date("2020-10-01T00:00:00Z"))
            #expect(
                refused.first?.description
                    == "'leaf' is valid for 399 days (2020-09-01 to 2021-10-05); iOS 14 and later allow at most 398 days for a leaf "
                    + "issued on or after 1 September 2020 whose chain ends at a root built into iOS")
        }
    }

    @Test func todaysIOSCountsALeafIssuedAtTheJuly2019InstantItselfUnderAnAppAnchor() throws {
        // Apple's constant for "1 July 2019" is 30 June 2019 23:00 UTC; iOS 16 applies its rule from that instant on.
        let server = try leaf(from: date("2019-06-30T23:00:00Z"), days: 900, signedBy: nil)
        func result(_ platform: Platform) -> TrustResult {
            var trust = ServerTrust(
                certificates: [server.certificate], deviceTrustStore: DeviceTrustStore(), policy: .ssl(host: "bank.test"),
                verifyDate: date("2019-07-02T00:00:00Z"), platform: platform)
            trust.setAnchorCertificates([server.certificate])
            return trust.evaluate()
        }
        #expect(result(.iOS16).failures.map(\.kind) == [.validityPeriodTooLong(maximumDays: 825, anchor: .app)])
        #expect(result(.iOS13).isValid)
    }
}
