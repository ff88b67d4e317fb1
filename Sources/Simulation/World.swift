import Foundation
import PKI

/// The certificates of a scenario, generated with OpenSSL at the scenario's clock.
public struct World: Sendable {
    public let factory: CertificateFactory
    /// Every authority and leaf by id, in file order.
    public let identities: [(id: String, identity: Identity)]
    public let clientIdentity: Identity?
    /// The authorities the device trusts.
    public let deviceTrustStore: [Certificate]
    /// The client identity as the app ships it: a `.p12` and its password.
    public let clientPKCS12: (bytes: [UInt8], password: String)?

    public func identity(_ id: String) -> Identity? { identities.first { $0.id == id }?.identity }

    /// Builds every certificate. References were checked by the loader, so a missing id is a bug.
    public init(_ spec: WorldSpec, clock: Date) throws {
        factory = CertificateFactory(now: clock)
        let defaultStart = clock.addingTimeInterval(-30 * 86_400), defaultEnd = clock.addingTimeInterval(365 * 86_400)
        var built: [String: Identity] = [:]
        let factory = factory

        func authority(_ id: String) throws -> Identity {
            if let done = built[id] { return done }
            guard let spec = spec.authorities.first(where: { $0.id == id }) else { preconditionFailure("unknown authority \(id)") }
            let issuer = try spec.issuer.map(authority)
            let made = try factory.makeIdentity(
                .authority(label: spec.id, commonName: spec.name, pathLength: spec.pathLength,
                           notBefore: spec.notBefore ?? defaultStart, notAfter: spec.notAfter ?? defaultEnd),
                keyType: spec.keyType, signedBy: issuer)
            built[id] = made
            return made
        }

        func leaf(_ id: String) throws -> Identity {
            if let done = built[id] { return done }
            guard let spec = spec.leaves.first(where: { $0.id == id }) else { preconditionFailure("unknown leaf \(id)") }
            var certificate = CertificateSpec.serverLeaf(
                label: spec.id, commonName: spec.commonName, organization: spec.organization, dnsNames: spec.dnsNames,
                ipAddresses: spec.ipAddresses, notBefore: spec.notBefore ?? defaultStart, notAfter: spec.notAfter ?? defaultEnd)
            if !spec.extensions { (certificate.basicConstraints, certificate.keyUsage, certificate.extendedKeyUsage) = (nil, nil, nil) }
            let key = try spec.keyOf.map { try leaf($0).privateKey } ?? PrivateKey.generate(spec.keyType)
            let issuer = spec.issuer == "self" ? nil : try authority(spec.issuer)
            let made = Identity(certificate: try factory.issue(certificate, key: key, signedBy: issuer), privateKey: key)
            built[id] = made
            return made
        }

        identities = try spec.authorities.map { ($0.id, try authority($0.id)) } + spec.leaves.map { ($0.id, try leaf($0.id)) }
        deviceTrustStore = spec.authorities.filter(\.trustedByDevice).compactMap { built[$0.id]?.certificate }
        let client = try spec.clientIdentity.map { client -> (Identity, [UInt8], String) in
            var certificate = CertificateSpec.serverLeaf(label: client.id, dnsNames: [], notBefore: defaultStart, notAfter: defaultEnd)
            certificate.subject = DistinguishedName(commonName: client.name)
            certificate.extendedKeyUsage = [.clientAuth]
            let made = try factory.makeIdentity(certificate, signedBy: authority(client.issuer))
            let bundle = try made.pkcs12(password: client.password)
            // The app loads its identity from the .p12 it ships, as the lesson's apps do with client.p12.
            return (try Identity(pkcs12: bundle, password: client.password, source: "\(client.id).p12").relabeled(client.id), bundle, client.password)
        }
        clientIdentity = client?.0
        clientPKCS12 = client.map { ($0.1, $0.2) }
    }
}
