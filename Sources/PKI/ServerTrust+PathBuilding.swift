/// Apple's path builder: when the first path fails, the others that end at an anchor are tried in turn.
extension ServerTrust {
    /// The paths from the leaf up to an anchor through the anchors and the certificates the server sent, leaf first: the
    /// anchors are searched first, then what the server sent in its order, as Apple's `SecPathBuilderGetNext` searches its
    /// anchor sources before the parent sources. Each step is an issuer whose name and key fit. A path ends at the first
    /// anchor it meets. The search is bounded, as the server's certificates come from outside: at most `limit` paths of
    /// at most `maximumLength` certificates, and at most `budget` issuer signatures checked.
    package func anchoredPaths(limit: Int = 8, maximumLength: Int = 8, budget: Int = 64) -> [[Certificate]] {
        guard !anchorCertificates.contains(leaf) else { return [] }
        var pool = anchorCertificates
        for certificate in certificates.dropFirst() where !pool.contains(certificate) { pool.append(certificate) }
        var paths: [[Certificate]] = []
        var checks = 0
        func extend(_ path: [Certificate]) {
            guard let top = path.last, paths.count < limit else { return }
            if path.count > 1, anchorCertificates.contains(top) {
                paths.append(path)
                return
            }
            guard path.count < maximumLength else { return }
            for issuer in pool where issuer.subject == top.issuer && !path.contains(issuer) && checks < budget {
                checks += 1
                if top.isSigned(by: issuer) { extend(path + [issuer]) }
            }
        }
        extend([leaf])
        return paths
    }
}
