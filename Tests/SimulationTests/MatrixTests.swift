import Foundation
import Policies
import Simulation
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

    @Test func everyCellLoadedAsAScenarioRunsToTheCellsVerdict() throws {
        for cell in Self.matrix.cells {
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
        #expect(verdict(.none, .misissued) == "LEAKED")
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
