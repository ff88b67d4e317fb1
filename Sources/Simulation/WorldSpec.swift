import Policies

/// The certificates of a lesson: authorities (roots and intermediates), leaves, and a client identity.
public struct WorldSpec: Sendable, Decodable {
    public var authorities: [AuthoritySpec]
    public var leaves: [LeafSpec]
    public var clientIdentity: ClientIdentitySpec?
    /// The Certificate Transparency logs; nil when the file names none (`effectiveLogs` then gives the defaults).
    public var logs: [LogSpec]?

    enum CodingKeys: String, CodingKey, CaseIterable { case authorities, leaves, clientIdentity, logs }

    public init(from decoder: Decoder) throws {
        let container = try decoder.strictContainer(CodingKeys.self)
        authorities = try container.decode([AuthoritySpec].self, forKey: .authorities)
        leaves = try container.decode([LeafSpec].self, forKey: .leaves)
        clientIdentity = try container.decodeIfPresent(ClientIdentitySpec.self, forKey: .clientIdentity)
        logs = try container.decodeIfPresent([LogSpec].self, forKey: .logs)
        try findIssuersOfFiles(container.codingPath)
    }

    /// The issuer of each certificate read from a file: the authority read from a file that signed it (`self` for
    /// a self-signed leaf, none for a root). An `issuer` the lesson writes beside `file` must be that one.
    private mutating func findIssuersOfFiles(_ codingPath: [CodingKey]) throws {
        let signers = authorities.compactMap { spec in spec.file.map { (id: spec.id, certificate: $0.certificate) } }
        func fail(_ path: [CodingKey], _ reason: String) -> DecodingError { .dataCorrupted(.init(codingPath: codingPath + path, debugDescription: reason)) }
        func issuer(of source: CertificateFile, id: String, at path: [CodingKey]) throws -> String? {
            let certificate = source.certificate
            if certificate.isSelfIssued, certificate.isSigned(by: certificate) { return nil }
            let signer = signers.first { $0.id != id && certificate.issuer == $0.certificate.subject && certificate.isSigned(by: $0.certificate) }
            guard let signer else {
                throw fail(
                    path + [AnyKey(stringValue: "file")],
                    "'\(source.file)' was issued by \(certificate.issuer), which is not in the world: no authority of world.authorities read from a "
                        + "file signed it (give that CA's certificate and key as one, with file and keyFile)")
            }
            return signer.id
        }
        func mismatch(_ source: CertificateFile, signer: String?, written: String) -> String {
            "'\(source.file)' was signed by \(signer.map { "'\($0)'" } ?? "itself"), not '\(written)'; leave `issuer` out for a certificate read from a file"
        }
        for (index, spec) in authorities.enumerated() {
            guard let source = spec.file else { continue }
            let path: [CodingKey] = [CodingKeys.authorities, AnyKey(intValue: index)]
            let signer = try issuer(of: source, id: spec.id, at: path)
            if let written = spec.issuer, written != signer {
                throw fail(path + [AnyKey(stringValue: "issuer")], mismatch(source, signer: signer, written: written))
            }
            authorities[index].issuer = signer
        }
        for (index, spec) in leaves.enumerated() {
            guard let source = spec.file else { continue }
            let path: [CodingKey] = [CodingKeys.leaves, AnyKey(intValue: index)]
            let signer = try issuer(of: source, id: spec.id, at: path) ?? "self"
            if !spec.issuer.isEmpty, spec.issuer != signer {
                throw fail(path + [AnyKey(stringValue: "issuer")], mismatch(source, signer: signer == "self" ? nil : signer, written: spec.issuer))
            }
            leaves[index].issuer = signer
        }
    }

    /// The world's logs: those the file names, else `LogSpec.defaults` when an authority is a root built into iOS
    /// (public CAs log their leaves), else none.
    public var effectiveLogs: [LogSpec] {
        logs ?? (authorities.contains { $0.deviceTrust == .system } ? LogSpec.defaults : [])
    }

    /// The root above authority `id` (itself for a root); nil for an id that names none.
    func root(of id: String) -> AuthoritySpec? {
        var current = authorities.first { $0.id == id }
        var seen: Set<String> = []
        while let issuer = current?.issuer, seen.insert(issuer).inserted { current = authorities.first { $0.id == issuer } }
        return current
    }

    /// The logs authority `id` submits its leaves to: its `logsTo`, else every log of the world when its root is built
    /// into iOS (a public CA), else none.
    func logs(of id: String) -> [String] {
        guard let authority = authorities.first(where: { $0.id == id }) else { return [] }
        return authority.logsTo ?? (root(of: id)?.deviceTrust == .system ? effectiveLogs.map(\.id) : [])
    }
}
