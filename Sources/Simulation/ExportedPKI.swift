import Foundation
import PKI

/// A PKI that `PKIExport` wrote to a directory earlier, read back one certificate at a time so a world
/// can be built from it: the same CA and the same pins as before, for a lab that restarts.
///
/// A certificate is taken only when it is exactly what the scenario asks for now: its file parses, its key
/// matches it, its subject, names, CA flag and key are the scenario's, the certificate the scenario names
/// as its issuer signed it, and its dates are the scenario's (or, when the scenario leaves them to the
/// clock, still include the clock). Otherwise the world makes a new one and `reuse` says why.
final class ExportedPKI {
    /// What the scenario asks for, in the terms the files can be checked against.
    struct Expected {
        let spec: CertificateSpec
        /// False when the scenario gave no date and the world chose one around its clock.
        let explicitNotBefore: Bool, explicitNotAfter: Bool
        /// Nil for a self-signed certificate.
        let issuer: Certificate?
        /// The public key the certificate must carry (a leaf that reuses another leaf's key).
        let publicKeyInfo: [UInt8]?
    }

    let directory: String
    let clock: Date
    private(set) var reused: [String] = []
    private(set) var remade: [World.Reuse.Remade] = []

    init(directory: String, clock: Date) {
        self.directory = directory
        self.clock = clock
    }

    var report: World.Reuse { World.Reuse(directory: directory, reused: reused, remade: remade) }

    /// `<id>.pem` with `<id>.key`, labelled `id`, when they are what `expected` describes.
    func identity(_ id: String, _ expected: Expected) -> Identity? {
        take(id, expected) {
            let certificates = try Certificate.loadAll(from: path("\(id).pem"))
            guard certificates.count == 1 else { throw Mismatch("\(id).pem holds \(certificates.count) certificates") }
            let key = try PrivateKey.load(from: path("\(id).key"))
            guard try key.publicKeyInfo() == certificates[0].publicKeyInfo else { throw Mismatch("\(id).key is not the key of \(id).pem") }
            return Identity(certificate: certificates[0], privateKey: key)
        }
    }

    /// The identity in `<id>.p12`, opened with `password`, when it is what `expected` describes.
    func pkcs12(_ id: String, password: String, _ expected: Expected) -> (identity: Identity, bytes: [UInt8])? {
        var bytes: [UInt8] = []
        let identity = take(id, expected) {
            bytes = try InputFile.read(path("\(id).p12"), limit: Certificate.fileSizeLimit, kind: "a .p12 file")
            return try Identity(pkcs12: bytes, password: password, source: path("\(id).p12"))
        }
        return identity.map { ($0, bytes) }
    }

    /// The signing key of CT log `id` (`ct-log-<id>.key`), when the directory holds one that reads.
    func logKey(_ id: String) -> PrivateKey? { try? PrivateKey.load(from: path("ct-log-\(id).key")) }

    /// Records that `id` is made anew whatever the directory holds, and why (that it holds none, if so).
    func remake(_ id: String, reason: String) {
        let held = FileManager.default.fileExists(atPath: path("\(id).pem"))
        remade.append(.init(id: id, reason: held ? reason : "none in \(directory)"))
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    private struct Mismatch: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private func take(_ id: String, _ expected: Expected, load: () throws -> Identity) -> Identity? {
        guard FileManager.default.fileExists(atPath: path("\(id).pem")) || FileManager.default.fileExists(atPath: path("\(id).p12")) else {
            remade.append(.init(id: id, reason: "none in \(directory)"))
            return nil
        }
        do {
            let identity = try load()
            if let mismatch = Self.mismatch(identity.certificate, expected, clock: clock) { throw Mismatch("\(id) \(mismatch)") }
            reused.append(id)
            return identity.relabeled(id)
        } catch {
            remade.append(.init(id: id, reason: "\(error)"))
            return nil
        }
    }

    /// Why `certificate` is not what `expected` describes, or nil when it is.
    private static func mismatch(_ certificate: Certificate, _ expected: Expected, clock: Date) -> String? {
        let spec = expected.spec
        let isAuthority: Bool = if case .authority = spec.basicConstraints { true } else { false }
        if certificate.subject != spec.subject { return "is for \(certificate.subject), the lesson wants \(spec.subject)" }
        if certificate.dnsNames != spec.dnsNames || certificate.ipAddresses != spec.ipAddresses { return "names other hosts than the lesson" }
        if certificate.isAuthority != isAuthority { return isAuthority ? "is not a CA, the lesson's is" : "is a CA, the lesson's is not" }
        if let key = expected.publicKeyInfo, key != certificate.publicKeyInfo { return "does not share the key the lesson says it shares" }
        if let issuer = expected.issuer {
            guard certificate.issuer == issuer.subject, certificate.isSigned(by: issuer) else { return "was not signed by its issuer '\(issuer.label)'" }
        } else if !(certificate.isSelfIssued && certificate.isSigned(by: certificate)) {
            return "is not self-signed, the lesson's is"
        }
        // Whole seconds: X.509 times carry no fractions.
        func same(_ a: Date, _ b: Date) -> Bool { abs(a.timeIntervalSince(b)) < 1 }
        if expected.explicitNotBefore ? !same(certificate.notBefore, spec.notBefore) : certificate.notBefore > clock {
            return "starts at another time than the lesson's"
        }
        if expected.explicitNotAfter ? !same(certificate.notAfter, spec.notAfter) : certificate.notAfter <= clock {
            return expected.explicitNotAfter ? "ends at another time than the lesson's" : "has expired"
        }
        return nil
    }
}
