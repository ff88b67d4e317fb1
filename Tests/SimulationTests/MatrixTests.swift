import Foundation
import Policies
import Simulation
import TestSupport
import Testing

/// A few cells of the matrix against verdicts worked out by hand from the AFSecurityPolicy procedure.
struct MatrixTests {
    static let matrix: Matrix = {
        let scenario = try! ScenarioLoader.load(CatalogTests.scenarios + "/" + CatalogTests.catalog[0] + ".yaml")
        return try! Matrix(scenario: scenario)
    }()

    func verdict(
        _ mode: SSLPinningMode, allowInvalid: Bool = false, validates: Bool = true, pinned: Matrix.Pinned = .nothing,
        _ column: Matrix.Column
    ) -> String? {
        let policy = Matrix.Policy(pinningMode: mode, allowInvalidCertificates: allowInvalid, validatesDomainName: validates, pinned: pinned)
        return Self.matrix.cell(policy, column)?.symbol
    }

    @Test func everyPolicyMeetsEveryAttack() {
        #expect(Self.matrix.policies.count == 48)
        #expect(Self.matrix.cells.count == 48 * Matrix.Column.allCases.count)
    }

    /// Every cell with `MITMSIM_SOAK=1`; otherwise a quarter of them (480 runs take seconds of CPU), chosen so that
    /// every attack meets 12 of the 48 policies and every policy 2 or 3 of the attacks: the cells whose policy and
    /// attack numbers add up to a multiple of 4.
    @Test func everyCellLoadedAsAScenarioRunsToTheCellsVerdict() throws {
        let every = Soak.size(4, long: 1)
        let columns = Matrix.Column.allCases.count
        for (index, cell) in Self.matrix.cells.enumerated() where (index / columns + index % columns) % every == 0 {
            let report = try ScenarioRunner.run(Self.matrix.scenario(for: cell.policy, cell.column))
            #expect(report.trusted == cell.trusted, "\(cell.policy.label) × \(cell.column)")
            #expect(report.attackerView.sawPlaintext == cell.attackerSawPlaintext, "\(cell.policy.label) × \(cell.column)")
            #expect(report.serverReceivedRequest == cell.serverReceivedRequest, "\(cell.policy.label) × \(cell.column)")
            #expect(report.decidingCheck == cell.decidingCheck, "\(cell.policy.label) × \(cell.column)")
        }
    }

    @Test func aLoadedCellStagesTheMatrixsOwnCertificates() {
        let policy = Matrix.Policy(pinningMode: .certificate, allowInvalidCertificates: false, validatesDomainName: true, pinned: .root)
        let scenario = Self.matrix.scenario(for: policy, .misissued)
        #expect(scenario.attacker == AttackSpec(.misissued, authority: "matrix-public-ca"))
        #expect(scenario.world.authorities.contains { $0.id == "matrix-public-ca" && $0.deviceTrust?.isAnchor == true })
        #expect(scenario.client.policy.pinnedCertificates == [Self.matrix.pinnedIDs[.root]].compactMap { $0 })
        let installed = Self.matrix.scenario(for: policy, .forgeInstalledCA)
        #expect(installed.world.authorities.contains { $0.id == "matrix-attacker-ca" && $0.deviceTrust?.isAnchor == true })
        #expect(!Self.matrix.staged.world.authorities.contains { $0.id == "matrix-attacker-ca" && $0.deviceTrust?.isAnchor == true })
    }

    @Test func eachCellNamesTheStepThatDecidedIt() {
        let policy = Matrix.Policy(pinningMode: .none, allowInvalidCertificates: false, validatesDomainName: true, pinned: .nothing)
        #expect(Self.matrix.cell(policy, .forgeUntrustedCA)?.decidingCheck == .chainTrust)
        #expect(Self.matrix.cell(policy, .forgeUntrustedCA)?.verdict == "REJECTED at chainTrust")
        let contradictory = Matrix.Policy(pinningMode: .none, allowInvalidCertificates: true, validatesDomainName: true, pinned: .nothing)
        #expect(Self.matrix.cell(contradictory, .none)?.decidingCheck == .domainGuard)
        let pinned = Matrix.Policy(pinningMode: .publicKey, allowInvalidCertificates: false, validatesDomainName: true, pinned: .leaf)
        #expect(Self.matrix.cell(pinned, .forgeInstalledCA)?.decidingCheck == .pinnedPublicKeyMatch)
    }

    @Test func theTextTableHasALegendForEverySymbolAndAbbreviation() {
        let text = Self.matrix.text
        for words in ["LEAKED:", "accepted:", "rejected:", "A = allowInvalidCertificates", "V = validatesDomainName"] { #expect(text.contains(words)) }
        for column in Matrix.Column.allCases { #expect(text.contains("\(column.rawValue): \(column.meaning)")) }
    }

    @Test func theDefaultPolicyFallsOnlyToAttackersTheDeviceTrusts() {
        #expect(verdict(.none, .none) == "accepted")
        #expect(verdict(.none, .forgeUntrustedCA) == "rejected")
        #expect(verdict(.none, .forgeInstalledCA) == "LEAKED")
        #expect(verdict(.none, .misissued) == "rejected", "iOS 16 requires Certificate Transparency of a leaf at a root built into it")
        #expect(verdict(.none, .misissuedLogged) == "LEAKED")
        #expect(verdict(.none, .wrongHost) == "rejected")
        #expect(verdict(.none, .expired) == "rejected")
        #expect(verdict(.none, .stolenKey) == "LEAKED")
        #expect(verdict(.none, .replayedChain) == "accepted", "the chain is real; the handshake then fails, so nothing leaks")
    }

    @Test func allowingInvalidCertificatesWithoutDomainValidationAcceptsEverything() {
        for attack in Matrix.Column.allCases {
            #expect(verdict(.none, allowInvalid: true, validates: false, attack) != "rejected", "\(attack)")
        }
        #expect(verdict(.none, allowInvalid: true, validates: false, .selfSigned) == "LEAKED")
    }

    @Test func contradictorySettingsRejectEvenTheRealServer() {
        #expect(verdict(.none, allowInvalid: true, validates: true, .none) == "rejected")
    }

    @Test func pinningTheLeafStopsEveryForgeryButNotAStolenKey() {
        for mode in [SSLPinningMode.publicKey, .certificate] {
            for attack in [Matrix.Column.forgeInstalledCA, .misissued, .selfSigned, .wrongHost, .expired] {
                #expect(verdict(mode, pinned: .leaf, attack) == "rejected", "\(mode) \(attack)")
            }
            #expect(verdict(mode, pinned: .leaf, .stolenKey) == "LEAKED")
        }
    }

    @Test func publicKeyPinningOfTheIntermediateWithInvalidCertificatesAllowedAcceptsAnExpiredLeaf() {
        // G1's shape: no dates are checked, and the expired leaf links to the pinned intermediate's key.
        #expect(verdict(.publicKey, allowInvalid: true, pinned: .intermediate, .expired) == "LEAKED")
        #expect(verdict(.certificate, allowInvalid: true, pinned: .intermediate, .expired) == "rejected", "the anchored re-evaluation checks dates")
    }

    @Test func anEmptyPinnedSetRejectsEvenTheRealServerInPinningModes() {
        #expect(verdict(.publicKey, pinned: .nothing, .none) == "rejected")
        #expect(verdict(.certificate, pinned: .nothing, .none) == "rejected")
    }

    @Test func theTableSaysHowManyPoliciesAcceptEachAttack() {
        // A forgery from an untrusted CA passes only mode none with allowInvalidCertificates YES and
        // validatesDomainName NO: one row per pinned choice, and there are 4 (nothing, leaf, intermediate, root).
        #expect(Self.matrix.acceptedCount(.forgeUntrustedCA) == 4)
        // With the attacker's CA installed, mode none accepts it in 12 of its 16 rows (all but the 4 that
        // domainGuard refuses: A=Y V=Y); pinning modes never do, since the forgery holds no pinned key or certificate.
        #expect(Self.matrix.acceptedCount(.forgeInstalledCA) == 12)
        let lastLine = Self.matrix.text.components(separatedBy: "\n").last ?? ""
        #expect(lastLine.hasPrefix("accepted by") && lastLine.contains("4 of 48") && lastLine.contains("12 of 48"))
    }
}

/// `Matrix(rows: .versions)` and `Matrix(rows: .settings(version))`: which rows each has, and cells that run
/// the row's release, checked against verdicts worked out by hand from that release's `AFSecurityPolicy.m`.
struct MatrixByVersionTests {
    static let scenario = try! ScenarioLoader.load(CatalogTests.scenarios + "/" + CatalogTests.catalog[0] + ".yaml")
    static let attacks: [Matrix.Column] = [.none, .selfSigned, .wrongHost]
    static let versions = try! Matrix(scenario: scenario, rows: .versions, columns: attacks)
    static let release251 = try! Matrix(scenario: scenario, rows: .settings(.v2_5_1), columns: [.none])

    func symbol(_ version: AFNetworkingVersion, _ column: Matrix.Column) -> String? {
        Self.versions.cell(.defaultPolicy(of: version), column)?.symbol
    }

    @Test func theVersionsMatrixHasOneRowPerReleaseNewestFirstEachWithItsDefaultPolicy() {
        #expect(Self.versions.policies.map(\.version) == AFNetworkingVersion.allCases)
        #expect(Self.versions.policies.allSatisfy { $0.pinningMode == .none && !$0.allowInvalidCertificates && $0.pinned == .nothing })
        #expect(Self.versions.policies.map(\.validatesDomainName) == AFNetworkingVersion.allCases.map { $0.defaultValidatesDomainName(for: .none) })
        #expect(Self.versions.cells.count == AFNetworkingVersion.allCases.count * Self.attacks.count)
    }

    @Test func theVersionsTableNamesEachReleaseAndTheDefaultsItsRowsShare() throws {
        let lines = Self.versions.text.components(separatedBy: "\n")
        #expect(lines.first == "Every AFNetworking release's default policy × attack for the world of '\(Self.scenario.id)'.")
        #expect(lines.contains { $0.hasPrefix("Each row is that release's +defaultPolicy: pinning mode none, allowInvalidCertificates NO") })
        let header = try #require(lines.firstIndex { $0.hasPrefix("library ") })
        let rows = lines.dropFirst(header + 1).prefix(AFNetworkingVersion.allCases.count)
        #expect(rows.map { String($0.prefix(20)).trimmingCharacters(in: .whitespaces) } == AFNetworkingVersion.allCases.map(\.rawValue))
        #expect(rows.first?.hasPrefix("afnetworking-4      V=Y ") == true)
        #expect(rows.first { $0.hasPrefix("afnetworking-2.5.2 ") }?.contains("V=N") == true)
        #expect(rows.last?.contains("V=") == false, "2.0 has no validatesDomainName")
    }

    @Test func theReleasesBefore2_5_3TrustAValidCertificateForAnotherHostAnd2_5_3AndLaterDoNot() {
        // 2.5.0–2.5.2's +defaultPolicy leaves validatesDomainName NO: CVE-2015-3996.
        #expect(symbol(.v2_5_2, .wrongHost) == "LEAKED")
        #expect(symbol(.v2_5_0, .wrongHost) == "LEAKED")
        for version in [AFNetworkingVersion.v4, .v2_6, .v2_5_3] {
            #expect(symbol(version, .wrongHost) == "rejected", "\(version)")
            #expect(symbol(version, .selfSigned) == "rejected", "\(version)")
        }
        #expect(symbol(.v2_5_2, .selfSigned) == "rejected", "2.5.2 evaluates the trust in mode none again")
    }

    @Test func everyReleasesDefaultPolicyTrustsTheRealServer() {
        for version in AFNetworkingVersion.allCases { #expect(symbol(version, .none) == "accepted", "\(version)") }
    }

    /// Holds once `SecurityPolicy.evaluate` decides by version: 2.5.1 returns YES in mode none without evaluating.
    @Test func afnetworking2_5_1sDefaultPolicyTrustsASelfSignedForgery() {
        #expect(symbol(.v2_5_1, .selfSigned) == "LEAKED")
    }

    @Test func everyCellOfTheVersionsMatrixLoadedAsAScenarioRunsTheRowsRelease() throws {
        for cell in Self.versions.cells {
            let scenario = Self.versions.scenario(for: cell.policy, cell.column)
            #expect(scenario.client.library == .afnetworking(cell.policy.version))
            let report = try ScenarioRunner.run(scenario)
            #expect(report.trusted == cell.trusted, "\(cell.policy.version) × \(cell.column)")
            #expect(report.decidingCheck == cell.decidingCheck, "\(cell.policy.version) × \(cell.column)")
        }
    }

    @Test func aReleasesSettingsVaryValidatesCertificateChainOnlyInThePinningModes() {
        let policies = Self.release251.policies
        #expect(policies.allSatisfy { $0.version == .v2_5_1 })
        // mode none: 2 × 2 × 4 pinned; each pinning mode: 2 × 2 × 2 (validatesCertificateChain) × 4.
        #expect(policies.count == 16 + 2 * 32)
        #expect(policies.filter { !$0.validatesCertificateChain }.allSatisfy { $0.pinningMode != .none })
        #expect(Set(policies).count == policies.count)
        #expect(policies.allSatisfy { $0.label.contains(" C=") })
        #expect(Self.release251.text.hasPrefix("Policy × attack for the world of '\(Self.scenario.id)', with afnetworking-2.5.1's AFSecurityPolicy."))
        #expect(Self.release251.legend[1].hasPrefix("A = allowInvalidCertificates, V = validatesDomainName, C = validatesCertificateChain"))
    }

    @Test func aLoadedCellOfAReleasesSettingsCarriesTheReleaseAndValidatesCertificateChain() throws {
        let policy = Matrix.Policy(
            version: .v2_5_1, pinningMode: .publicKey, allowInvalidCertificates: false, validatesDomainName: true, validatesCertificateChain: false,
            pinned: .leaf)
        let scenario = Self.release251.scenario(for: policy, .none)
        #expect(scenario.client.library == .afnetworking(.v2_5_1))
        #expect(scenario.client.policy.validatesCertificateChain == false)
        #expect(scenario.client.policy.pinnedCertificates == [Self.release251.pinnedIDs[.leaf]].compactMap { $0 })
        let report = try ScenarioRunner.run(scenario)
        #expect(report.trusted == Self.release251.cell(policy, .none)?.trusted)
    }

    /// Holds once `SecurityPolicy.evaluate` decides by version: with validatesCertificateChain YES, 2.5.1 wants
    /// every certificate of the chain pinned, and the leaf's key alone is not enough.
    @Test func afnetworking2_5_1PinningOnlyTheLeafsKeyTrustsTheRealServerOnlyWithoutValidatesCertificateChain() {
        func policy(_ validatesChain: Bool) -> Matrix.Policy {
            Matrix.Policy(
                version: .v2_5_1, pinningMode: .publicKey, allowInvalidCertificates: false, validatesDomainName: true,
                validatesCertificateChain: validatesChain, pinned: .leaf)
        }
        #expect(Self.release251.cell(policy(false), .none)?.symbol == "accepted")
        #expect(Self.release251.cell(policy(true), .none)?.symbol == "rejected")
    }

    @Test func afnetworking2_0sSettingsHaveNoValidatesDomainNameOrValidatesCertificateChain() throws {
        let matrix = try Matrix(scenario: Self.scenario, rows: .settings(.v2_0), columns: [.none])
        #expect(matrix.policies.count == 3 * 2 * 4)
        #expect(matrix.policies.allSatisfy { !$0.label.contains("V=") && !$0.label.contains("C=") && !$0.description.contains("validates") })
        #expect(matrix.csv.hasPrefix("pinningMode,allowInvalidCertificates,pinned,none\n"))
        #expect(matrix.legend[1].contains("afnetworking-2.0 has neither validatesDomainName nor validatesCertificateChain"))
    }

    @Test func afnetworking4sSettingsAreTheDefaultMatrix() {
        #expect(MatrixTests.matrix.rows == .settings(.v4))
        #expect(MatrixTests.matrix.policies.allSatisfy { $0.version == .v4 && !$0.label.contains("C=") })
    }
}
