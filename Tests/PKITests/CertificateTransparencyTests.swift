import Foundation
import Testing

@testable import PKI

/// The CT log inside mitmsim (RFC 6962 precertificates and SCTs), checked by OpenSSL's own CT code, and Apple's
/// CT requirement on top of it.
struct CertificateTransparencyTests {
    let start = date("2026-05-01T00:00:00Z"), end = date("2027-05-01T00:00:00Z")

    struct World {
        let root: Identity
        let logs: [CTLog]
        let leaf: Certificate
    }

    /// A public root, three logs (two operators) accepting it, and a leaf logged in `logged` of them.
    func world(logged: Int = 3, lifetimeDays: Double = 365) throws -> World {
        let root = try factory.makeIdentity(.authority(label: "public-ca", commonName: "Public CA", notBefore: start, notAfter: end))
        let logs = try [("north-1", "North Logs"), ("north-2", "North Logs"), ("south-1", "South Logs")].map {
            try CTLog(name: $0.0, operatorName: $0.1, acceptedRoots: [root.certificate])
        }
        let spec = CertificateSpec.serverLeaf(
            label: "bank-leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: start.addingTimeInterval(lifetimeDays * 86_400))
        let leaf = try factory.issue(spec, key: try PrivateKey.generate(), signedBy: root, chain: [], loggingTo: Array(logs.prefix(logged)))
        return World(root: root, logs: logs, leaf: leaf)
    }

    func list(_ logs: [CTLog]) throws -> CTLogList { try CTLogList(logs.map(\.listing)) }

    @Test func aLoggedLeafCarriesOneSCTPerLogThatOpenSSLValidates() throws {
        let world = try world()
        let validations = try list(world.logs).validate(world.leaf, issuer: world.root.certificate, at: clock)
        #expect(validations.map(\.status) == [.valid, .valid, .valid])
        #expect(validations.map { $0.log?.name } == ["north-1", "north-2", "south-1"])
        #expect(validations.allSatisfy { $0.date == start })
        #expect(!world.leaf.isPrecertificate)
        #expect(world.leaf.isSigned(by: world.root.certificate))
    }

    @Test func theOpenSSLToolReadsTheSCTListAndThePoison() throws {
        let world = try world(logged: 1)
        let directory = TemporaryDirectory()
        try world.leaf.write(to: directory.file("leaf.pem"))
        let text = try shell("openssl x509 -in \(directory.file("leaf.pem")) -noout -text")
        #expect(text.contains("CT Precertificate SCTs"))
        let logID = world.logs[0].listing.logID.map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(text.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: " ", with: "").contains(logID))
        let entry = try #require(world.logs[0].entries.first)
        try entry.precertificate.write(to: directory.file("precert.pem"))
        #expect(try shell("openssl x509 -in \(directory.file("precert.pem")) -noout -text").contains("CT Precertificate Poison: critical"))
    }

    @Test func anSCTWithATamperedSignatureIsInvalidToOpenSSL() throws {
        let world = try world(logged: 1)
        let entry = try #require(world.logs[0].entries.first)
        var signature = entry.timestamp.signature
        signature[signature.count - 1] ^= 0x01
        let tampered = SignedCertificateTimestamp(logID: entry.timestamp.logID, timestamp: entry.timestamp.timestamp, signature: signature)
        let leaf = try CertificateFactory.finalCertificate(entry.precertificate, timestamps: [tampered], issuer: world.root, digest: .sha256)
        #expect(try list(world.logs).validate(leaf, issuer: world.root.certificate, at: clock).map(\.status) == [.invalid])
    }

    @Test func anSCTIsForTheCertificateItWasSignedFor() throws {
        let world = try world(logged: 1)
        let other = try self.world(logged: 0)
        let entry = try #require(world.logs[0].entries.first)
        // The first world's SCT in the second world's leaf: the same log, the same issuer name, another TBSCertificate.
        let precertificate = try factory.issue(
            .serverLeaf(label: "bank-leaf", dnsNames: ["bank.test"], notBefore: start, notAfter: end), key: try PrivateKey.generate(),
            signedBy: world.root, poisoned: true)
        let leaf = try CertificateFactory.finalCertificate(precertificate, timestamps: [entry.timestamp], issuer: world.root, digest: .sha256)
        #expect(try list(world.logs).validate(leaf, issuer: world.root.certificate, at: clock).map(\.status) == [.invalid])
        #expect(try list(world.logs).validate(other.leaf, issuer: world.root.certificate, at: clock).isEmpty)
    }

    @Test func aLogTheDeviceDoesNotKnowOrAnotherKeyUnderItsNameDoesNotVerify() throws {
        let world = try world(logged: 1)
        let impostor = KnownLog(name: "north-1", operatorName: "North Logs", publicKeyInfo: try PrivateKey.generate().publicKeyInfo())
        let validations = try CTLogList([impostor]).validate(world.leaf, issuer: world.root.certificate, at: clock)
        #expect(validations.map(\.status) == [.unknownLog])
        #expect(validations.first?.log == nil)
    }

    @Test func anSCTFromTheFutureIsInvalid() throws {
        let world = try world(logged: 1)
        #expect(try list(world.logs).validate(world.leaf, issuer: world.root.certificate, at: start.addingTimeInterval(-86_400)).map(\.status) == [.invalid])
    }

    /// A list keeps what OpenSSL found for a leaf, its issuer and a time (a matrix judges one chain under every policy):
    /// another time or another issuer is judged anew, whatever was judged before.
    @Test func oneListJudgesTheSameLeafAnewAtAnotherTimeOrUnderAnotherIssuer() throws {
        let world = try world(logged: 1)
        let other = try factory.makeIdentity(.authority(label: "other-ca", commonName: "Other CA", notBefore: start, notAfter: end))
        let list = try list(world.logs)
        let before = start.addingTimeInterval(-86_400)
        #expect(list.validate(world.leaf, issuer: world.root.certificate, at: clock).map(\.status) == [.valid])
        #expect(list.validate(world.leaf, issuer: world.root.certificate, at: before).map(\.status) == [.invalid])
        #expect(list.validate(world.leaf, issuer: other.certificate, at: clock).map(\.status) == [.invalid])
        #expect(list.validate(world.leaf, issuer: world.root.certificate, at: clock).map(\.status) == [.valid])
    }

    @Test func aLogRefusesAChainToARootItDoesNotAcceptAndACertificateWithoutPoison() throws {
        let world = try world(logged: 0)
        let stranger = try factory.makeIdentity(.authority(label: "attacker-ca", commonName: "Attacker CA", notBefore: start, notAfter: end))
        let spec = CertificateSpec.serverLeaf(label: "forged", dnsNames: ["bank.test"], notBefore: start, notAfter: end)
        #expect(throws: PKIError.self) {
            try factory.issue(spec, key: try PrivateKey.generate(), signedBy: stranger, chain: [], loggingTo: world.logs)
        }
        #expect(throws: PKIError.self) { try world.logs[0].submit(precertificate: world.leaf, chain: [world.root.certificate], at: start) }
        #expect(world.logs[0].entries.isEmpty)
    }

    // MARK: - Apple's requirement

    func evaluate(_ world: World, knows logs: [CTLog]?, platform: Platform = .iOS16, installed: Bool = false) throws -> TrustResult {
        let store = DeviceTrustStore(
            system: installed ? [] : [world.root.certificate], userInstalled: installed ? [world.root.certificate] : [],
            transparencyLogs: try logs.map(list))
        return ServerTrust(certificates: [world.leaf], deviceTrustStore: store, policy: .ssl(host: "bank.test"), verifyDate: clock, platform: platform)
            .evaluate()
    }

    @Test func aYearLongLeafAtASystemRootNeedsThreeSCTsAtMostTwoPerOperator() throws {
        let three = try world(logged: 3)
        #expect(try evaluate(three, knows: three.logs).isValid)
        #expect(try evaluate(three, knows: three.logs).transparency?.counted == 3)
        // Two logs of one operator count for two: one short.
        let two = try world(logged: 2)
        let result = try evaluate(two, knows: two.logs)
        #expect(result.reason?.kind == .certificateTransparencyRequired(required: 3, counted: 2))
        // The same three SCTs, but the device knows only two of the logs.
        #expect(try evaluate(three, knows: Array(three.logs.dropLast())).reason?.kind == .certificateTransparencyRequired(required: 3, counted: 2))
    }

    @Test func aShortLivedLeafNeedsTwoSCTsFromTwoOperators() throws {
        let sameOperator = try world(logged: 2, lifetimeDays: 90)
        #expect(try evaluate(sameOperator, knows: sameOperator.logs).reason?.kind == .certificateTransparencyRequired(required: 2, counted: 1))
        let world = try world(logged: 3, lifetimeDays: 90)
        #expect(try evaluate(world, knows: world.logs).isValid)
    }

    @Test func anUnloggedLeafIsRefusedOnlyWhereAppleRequiresCT() throws {
        let world = try world(logged: 0)
        #expect(try evaluate(world, knows: world.logs).reason?.kind == .certificateTransparencyRequired(required: 3, counted: 0))
        #expect(try evaluate(world, knows: world.logs, platform: .iOS13).isValid == false)
        #expect(try evaluate(world, knows: world.logs, platform: .iOS12).isValid)
        #expect(try evaluate(world, knows: world.logs, platform: .android).isValid)
        #expect(try evaluate(world, knows: world.logs, installed: true).isValid)
        #expect(try evaluate(world, knows: nil).isValid)
    }
}
