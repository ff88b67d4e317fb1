import Foundation
import PKI
import TestSupport

/// One generated world for the differential tests against the real OkHttp and curl: a root (sometimes expired,
/// not yet valid, or with pathLen 0), an intermediate under it, a leaf for the host with SAN names drawn from
/// the cases where the libraries' host-name rules differ, another CA that forges, the chain the server
/// presents, the anchors the client trusts, and the pins it sets. Every choice comes from a seeded generator,
/// so a failing world is reproduced by its seed and index.
struct DifferentialWorld {
    let index: Int
    /// A sentence of the choices made, for a failure message.
    let summary: String
    let host: String
    /// The leaf's identity, whose key the server uses, and the chain it presents, leaf first.
    let identity: Identity
    let chain: [Certificate]
    /// The client's trust anchors (OkHttp's KeyStore, curl's `--cacert`); never empty.
    let anchors: [Certificate]
    /// OkHttp's pins: host pattern and the pinned certificate.
    let okHttpPins: [(pattern: String, certificate: Certificate)]
    /// curl's `--pinnedpubkey` keys.
    let curlPins: [Certificate]

    /// Generates world `index` of the sequence `seed` starts, valid around `now` (the real clock: the real
    /// libraries read it).
    init(seed: UInt64, index: Int, now: Date) throws {
        var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x1000_0001)
        let day: TimeInterval = 86_400
        let factory = CertificateFactory(now: now)
        func validity(_ name: String, _ choice: Int) -> (Date, Date, String) {
            switch choice {
            case 0: (now - 400 * day, now - 30 * day, "\(name) expired")
            case 1: (now + 30 * day, now + 400 * day, "\(name) not yet valid")
            default: (now - 30 * day, now + 300 * day, "")
            }
        }
        var notes: [String] = []
        // One world in four gets a flawed root, one in six an expired leaf or intermediate.
        let rootDates = validity("root", random.pick(8) < 2 ? random.pick(2) : 2)
        let rootPathLength: Int? = random.pick(6) == 0 ? 0 : nil
        if rootPathLength != nil { notes.append("root pathLen 0") }
        let root = try factory.makeIdentity(
            .authority(label: "Root", commonName: "Differential Root \(index)", pathLength: rootPathLength, notBefore: rootDates.0, notAfter: rootDates.1))
        let intermediateDates = validity("intermediate", random.pick(12) == 0 ? 0 : 2)
        let intermediate = try factory.makeIdentity(
            .authority(
                label: "Intermediate", commonName: "Differential Intermediate \(index)", notBefore: intermediateDates.0, notAfter: intermediateDates.1),
            signedBy: root)
        let attacker = try factory.makeIdentity(
            .authority(label: "Attacker CA", commonName: "Differential Attacker \(index)", notBefore: now - 30 * day, notAfter: now + 300 * day))

        host = ["bank.test", "www.bank.test"][random.pick(2)]
        // SAN names where OkHostnameVerifier, curl and Apple disagree, and plain ones.
        let sanChoices = [["bank.test"], ["www.bank.test"], ["*.bank.test"], ["*.test"], ["bank.test."], ["other.test"], ["bank.test", "www.bank.test"]]
        let san = sanChoices[random.pick(sanChoices.count)]
        let leafDates = validity("leaf", random.pick(12) == 0 ? 0 : 2)
        let forged = random.pick(4) == 0
        identity = try factory.makeIdentity(
            .serverLeaf(label: "leaf", dnsNames: san, notBefore: leafDates.0, notAfter: leafDates.1), signedBy: forged ? attacker : intermediate)
        notes += [rootDates.2, intermediateDates.2, leafDates.2, "SAN \(san)", forged ? "forged by the attacker CA" : ""]

        // What is sent: the leaf, then its issuers (the intermediate, the root) as drawn; sometimes an unrelated
        // genuine certificate appended (CVE-2016-2402's trick).
        let issuers = forged ? [attacker.certificate] : [intermediate.certificate, root.certificate]
        let sent = random.pick(issuers.count + 1)
        var chain = [identity.certificate] + issuers.prefix(sent)
        // Not under a flawed root: a chain out of order sends the JVM's trust manager to its path builder, which checks
        // the anchor's dates, where Conscrypt (and the JVM's validator, for a chain in order) never does.
        let rootIsSound = rootDates.2.isEmpty && rootPathLength == nil
        if random.pick(5) == 0, rootIsSound {
            chain.append(intermediate.certificate)
            notes.append("the intermediate appended")
        }
        self.chain = chain

        // What is trusted. An intermediate is trusted only with its root: past a trusted intermediate, OkHttp on the
        // JVM (BasicCertificateChainCleaner) keeps climbing through sent certificates, where Android does not.
        var anchors: [Certificate] = []
        switch random.pick(6) {
        case 0: anchors = [intermediate.certificate, root.certificate]
        case 1: anchors = [root.certificate, attacker.certificate]
        default: anchors = [root.certificate]
        }
        notes.append("anchors \(anchors.map(\.label))")
        self.anchors = anchors

        // Pins: none, or one certificate's key for an exact or single-wildcard pattern. `**.` is left out: the
        // Debian OkHttp (3.13.1) reads it as a literal host, while the `okhttp` model is 4.12.0.
        let candidates = [identity.certificate, intermediate.certificate, root.certificate, attacker.certificate]
        let patterns = [host, "*.bank.test", "*.test", "other.test"]
        if random.pick(3) == 0 {
            okHttpPins = []
            curlPins = []
        } else {
            let pinned = candidates[random.pick(candidates.count)]
            let pattern = patterns[random.pick(patterns.count)]
            okHttpPins = [(pattern, pinned)]
            curlPins = [pinned]
            notes.append("pin '\(pinned.label)' for '\(pattern)'")
        }
        self.index = index
        summary = "world \(index): host \(host); " + notes.filter { !$0.isEmpty }.joined(separator: "; ") + "; sent \(chain.map(\.label))"
    }
}

extension SplitMix64 {
    /// A number in 0..<count.
    mutating func pick(_ count: Int) -> Int { Int(next(upperBound: UInt64(count))) }
}
