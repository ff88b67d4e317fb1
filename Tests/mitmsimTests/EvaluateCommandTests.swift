import Foundation
import PKI
import Testing

/// `mitmsim evaluate`, run as other tools will run it: the real binary, real files, exit statuses.
struct EvaluateCommandTests {
    let world = try! WorldOnDisk()

    @Test func theRealChainForItsHostIsTrustedWithExitZero() throws {
        let result = try CommandLine.run(
            [
                "evaluate", "--chain", world.path("chain.pem"), "--domain", "bank.test",
                "--trust", world.path("bank-root.pem"),
            ] + world.at)
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("TRUSTED (decided at chainTrust)\n"))
        #expect(result.standardOutput.contains("path: 'bank.test' -> 'Bank Intermediate' -> 'Bank Root'"))
        #expect(result.standardOutput.contains("SPKI pin " + world.leaf.certificate.publicKeyPin))
        #expect(result.standardError.isEmpty)
    }

    @Test func aForgeryFromAnUntrustedCAIsRejectedWithExitOneAndTheJSONShape() throws {
        let result = try CommandLine.run(
            [
                "evaluate", "--chain", world.path("forged.pem"), "--domain", "bank.test",
                "--trust", world.path("bank-root.pem"), "--format", "json",
            ] + world.at)
        #expect(result.status == 1)
        let json = result.json
        #expect(Set(json.keys) == ["trusted", "steps", "path", "reason", "urlError"])
        #expect(json["urlError"] is NSNull, "a chain evaluated without an app has no URLSession error")
        #expect(json["trusted"] as? Bool == false)
        #expect(json["reason"] as? String == "untrustedRoot")
        let steps = json["steps"] as? [[String: String]] ?? []
        #expect(steps.map { $0["check"] } == ["domainGuard", "policySelection", "chainTrust"])
        #expect(steps.map { $0["outcome"] } == ["passed", "note", "failed"])
        #expect(steps.allSatisfy { Set($0.keys) == ["check", "outcome", "detail"] })
        let path = json["path"] as? [[String: String]] ?? []
        #expect(path.map { $0["subject"] } == ["CN=bank.test", "CN=Attacker CA"])
        #expect(path.first?["sha256"] == world.forged.certificate.sha256Hex)
    }

    @Test func aTrustedResultHasANullReasonInJSON() throws {
        let result = try CommandLine.run(
            ["evaluate", "--chain", world.path("chain.pem"), "--trust", world.path("bank-root.pem"), "--format", "json"] + world.at)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("\"reason\" : null"))
    }

    @Test func certificatePinningOfTheRealLeafRejectsAForgeryFromAnInstalledAttackerCA() throws {
        let trusting = ["--trust", world.path("bank-root.pem"), "--trust", world.path("attacker-ca.pem")]
        let unpinned = try CommandLine.run(["evaluate", "--chain", world.path("forged.pem"), "--domain", "bank.test"] + trusting + world.at)
        #expect(unpinned.status == 0)

        let pinned = try CommandLine.run(
            [
                "evaluate", "--chain", world.path("forged.pem"), "--domain", "bank.test", "--pinning-mode", "certificate",
                "--pin", world.path("bank-leaf.cer"),
            ] + trusting + world.at)
        #expect(pinned.status == 1)
        #expect(pinned.standardOutput.hasPrefix("NOT TRUSTED: untrustedRoot (decided at pinnedAnchors)"))
    }

    @Test func publicKeyPinningWithInvalidCertificatesAllowedAcceptsOnlyTheKey() throws {
        let arguments =
            [
                "--domain", "bank.test", "--pinning-mode", "public-key", "--pin", world.path("bank-leaf.cer"),
                "--allow-invalid-certificates",
            ] + world.at
        #expect(try CommandLine.run(["evaluate", "--chain", world.path("chain.pem")] + arguments).status == 0)
        #expect(try CommandLine.run(["evaluate", "--chain", world.path("forged.pem")] + arguments).status == 1)
    }

    @Test func theClockDecidesValidity() throws {
        let early = try CommandLine.run([
            "evaluate", "--chain", world.path("chain.pem"), "--trust", world.path("bank-root.pem"),
            "--at", "2020-01-01T00:00:00Z",
        ])
        #expect(early.status == 1)
        #expect(early.standardOutput.hasPrefix("NOT TRUSTED: notYetValid"))
    }

    @Test func withoutADomainTheHostIsNotChecked() throws {
        let result = try CommandLine.run(["evaluate", "--chain", world.path("chain.pem"), "--trust", world.path("bank-root.pem")] + world.at)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("the domain is nil, so the contradictory-settings rule does not apply"))
    }

    @Test func anEmptyDomainIsAHostTheLeafDoesNotNameNotANilDomain() throws {
        let result = try CommandLine.run(
            ["evaluate", "--chain", world.path("chain.pem"), "--domain", "", "--trust", world.path("bank-root.pem")] + world.at)
        #expect(result.status == 1)
        #expect(result.standardOutput.hasPrefix("NOT TRUSTED: hostnameMismatch (decided at chainTrust)"))
        #expect(result.standardOutput.contains("SSL policy for host '', which the leaf must name in its SAN"))
        #expect(result.standardOutput.contains("'bank.test' is issued for bank.test, not ''"))
    }

    @Test func anAttackerCAInstalledWithFullTrustAnchorsTheForgeryAndWithoutFullTrustItDoesNot() throws {
        let forged = ["evaluate", "--chain", world.path("forged.pem"), "--domain", "bank.test"] + world.at
        let installed = try CommandLine.run(forged + ["--installed", world.path("attacker-ca.pem")])
        #expect(installed.status == 0)
        #expect(installed.standardOutput.contains("ending at 'Attacker CA', a root the user installed and fully trusted"))

        let withoutFullTrust = try CommandLine.run(forged + ["--installed-without-full-trust", world.path("attacker-ca.pem")])
        #expect(withoutFullTrust.status == 1)
        #expect(withoutFullTrust.standardOutput.hasPrefix("NOT TRUSTED: installedWithoutFullTrust (decided at chainTrust)"))
    }

    @Test func aTenYearSelfSignedPinnedCertificateFailsOnIOS13AndPassesWithPlatformIOS12() throws {
        let start = world.clock.addingTimeInterval(-86_400)
        let tenYears = try CertificateFactory(now: world.clock).makeIdentity(
            .serverLeaf(label: "bank.test", dnsNames: ["bank.test"], notBefore: start, notAfter: start.addingTimeInterval(3_650 * 86_400)))
        let file = try world.write(tenYears.certificate.pemEncoded(), to: "ten-years.pem")
        let arguments =
            [
                "evaluate", "--chain", file, "--domain", "bank.test", "--pinning-mode", "certificate", "--pin", file,
                "--allow-invalid-certificates",
            ] + world.at

        let modern = try CommandLine.run(arguments)
        #expect(modern.status == 1)
        #expect(modern.standardOutput.hasPrefix("NOT TRUSTED: validityPeriodTooLong (decided at pinnedAnchors)"))
        #expect(modern.standardOutput.contains("iOS 13 and later allow at most 825 days"))
        #expect(try CommandLine.run(arguments + ["--platform", "ios12"]).status == 0)
    }

    @Test func aLeafNamingTheHostOnlyInItsCommonNameIsTrustedWithPlatformIOS12AndNotByDefaultNorOnIOS13() throws {
        let factory = CertificateFactory(now: world.clock)
        let start = world.clock.addingTimeInterval(-86_400)
        let root = try factory.makeIdentity(.authority(label: "CN Root", commonName: "CN Root", notBefore: start, notAfter: start + 3_650 * 86_400))
        let leaf = try factory.makeIdentity(
            .serverLeaf(label: "bank.test", commonName: "bank.test", dnsNames: [], notBefore: start, notAfter: start + 300 * 86_400), signedBy: root)
        let arguments =
            [
                "evaluate", "--chain", try world.write(leaf.certificate.pemEncoded(), to: "cn-only.pem"), "--domain", "bank.test",
                "--trust", try world.write(root.certificate.pemEncoded(), to: "cn-root.pem"),
            ] + world.at

        let legacy = try CommandLine.run(arguments + ["--platform", "ios12"])
        #expect(legacy.status == 0, "\(legacy.standardOutput)")
        #expect(legacy.standardOutput.contains("which the leaf must name in its SAN (on iOS 12, in its common name when the SAN has no DNS name)"))
        for platform in [[], ["--platform", "ios13"], ["--platform", "ios16"]] {
            let refused = try CommandLine.run(arguments + platform)
            #expect(refused.status == 1, "\(platform)")
            #expect(refused.standardOutput.contains("'bank.test' has no names in its SAN, not 'bank.test'; its common name 'bank.test' is never used"))
        }
    }

    @Test func contradictorySettingsAreRefusedWithAFsOwnMessage() throws {
        let result = try CommandLine.run(["evaluate", "--chain", world.path("chain.pem"), "--domain", "bank.test", "--allow-invalid-certificates"] + world.at)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("In order to validate a domain name for self signed certificates, you MUST use pinning."))
    }
}

/// Every kind of bad input: exit 2, exactly one line on standard error naming the option and file, nothing on standard output.
struct EvaluateBadInputTests {
    let world = try! WorldOnDisk()

    func expectRefused(_ arguments: [String], mentioning expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandLine.run(["evaluate"] + arguments)
        #expect(result.status == 2, sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, sourceLocation: sourceLocation)
        #expect(
            result.standardError.hasSuffix("\n") && result.standardError.dropLast().split(separator: "\n").count == 1,
            "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.contains(expected), "\(result.standardError)", sourceLocation: sourceLocation)
    }

    @Test func anUnknownPlatformIsRefused() throws {
        try expectRefused(["--chain", world.path("chain.pem"), "--platform", "ios9"], mentioning: "--platform")
    }

    @Test func garbagePEMIsRefused() throws {
        let file = try world.write(Array("-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n".utf8), to: "garbage.pem")
        try expectRefused(["--chain", file], mentioning: "--chain \(file): certificate 1 is not a valid X.509 certificate")
    }

    @Test func anEmptyFileIsRefused() throws {
        let file = try world.write([], to: "empty.pem")
        try expectRefused(["--chain", world.path("chain.pem"), "--trust", file], mentioning: "--trust \(file): the file is empty")
    }

    @Test func aPrivateKeyWhereACertificateBelongsIsRefused() throws {
        try expectRefused(
            ["--chain", world.path("chain.pem"), "--pin", world.path("bank-leaf.key")],
            mentioning: "--pin \(world.path("bank-leaf.key")): holds a private key where a certificate belongs")
    }

    @Test(arguments: [1, 4, 100, 200, -1])
    func aTruncatedDERCertificateIsRefused(cut: Int) throws {
        let der = world.leaf.certificate.der
        let file = try world.write(Array(der.prefix(cut > 0 ? cut : der.count + cut)), to: "cut-\(cut).cer")
        try expectRefused(["--chain", world.path("chain.pem"), "--pin", file], mentioning: "--pin \(file): certificate 1 is not a valid X.509 certificate")
    }

    @Test func aMissingFileAndAMissingOptionAndAnUnknownModeAreRefused() throws {
        try expectRefused(["--chain", world.path("nope.pem")], mentioning: "--chain \(world.path("nope.pem")): no such file")
        try expectRefused([], mentioning: "Missing expected argument '--chain <chain>'")
        try expectRefused(["--chain", world.path("chain.pem"), "--pinning-mode", "pubkey"], mentioning: "'none', 'public-key' or 'certificate'")
        try expectRefused(["--chain", world.path("chain.pem"), "--at", "tomorrow"], mentioning: "expected an ISO-8601 time")
    }

    @Test func devNullIsEmptyAndADirectoryOrAFIFOSaysWhatItIsWithoutWaiting() throws {
        try expectRefused(["--chain", "/dev/null"], mentioning: "--chain /dev/null: the file is empty; expected a PEM or DER certificate")
        try expectRefused(["--chain", world.directory], mentioning: "--chain \(world.directory): is a directory, not a file")
        let fifo = world.path("chain.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        try expectRefused(["--chain", world.path("chain.pem"), "--pin", fifo], mentioning: "--pin \(fifo): is a FIFO (named pipe), not a regular file")
    }

    @Test func aCertificateFileLargerThan1MiBIsRefusedBeforeItIsParsed() throws {
        let pem = try Array(world.leaf.certificate.pemEncoded())
        let file = try world.write(Array(repeating: pem, count: (1 << 20) / pem.count + 1).flatMap { $0 }, to: "huge.pem")
        try expectRefused(["--chain", file], mentioning: "--chain \(file): is larger than 1 MiB, the most mitmsim reads from a certificate file")
    }

    @Test(arguments: [false, true])
    func moreThan1000CertificatesInOneFileAreRefused(der: Bool) throws {
        let one = der ? world.leaf.certificate.der : try Array(world.leaf.certificate.pemEncoded())
        let file = try world.write(Array(repeating: one, count: 1_001).flatMap { $0 }, to: der ? "many.der" : "many.pem")
        try expectRefused(
            ["--chain", world.path("chain.pem"), "--trust", file],
            mentioning: "--trust \(file): holds more than 1000 certificates, the most mitmsim reads from one file")
    }

    @Test func repeatedFilesMayNotHoldMoreThan2MiBOfCertificatesTogether() throws {
        let pem = try Array(world.leaf.certificate.pemEncoded())
        let file = try world.write(Array(repeating: pem, count: 1_000).flatMap { $0 }, to: "thousand.pem")
        let trusting = Array(repeating: ["--trust", file], count: 8).flatMap { $0 }
        try expectRefused(
            ["--chain", world.path("chain.pem")] + trusting,
            mentioning: "--trust \(file): the certificate files of one evaluate hold more than 2 MiB of certificates together, the most it reads")
    }
}
