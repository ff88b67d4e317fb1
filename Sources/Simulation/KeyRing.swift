import LoopbackTLS
import PKI

/// Keys shared by worlds built alike: a certificate's id and key type get the same key in each, made once.
///
/// An audit builds one world per host with the same ids (`leaf`, `intermediate-1`, `root`, the matrix's own), so
/// its hosts share keys: an RSA key shaped like a `--chain` is made once per audit, not once per host. Which key a
/// certificate holds decides nothing a client checks but its type and size; pins are placed in each world by the
/// key they hash.
final class KeyRing: Sendable {
    private let keys = Locked<[String: PrivateKey]>([:])

    /// The key for the certificate `id` of type `type`, made on first use.
    func key(_ id: String, _ type: KeyType) throws -> PrivateKey {
        let name = "\(id) \(type.rawValue)"
        if let made = keys.withLock({ $0[name] }) { return made }
        let made = try PrivateKey.generate(type)
        return keys.withLock { kept in
            if let first = kept[name] { return first }
            kept[name] = made
            return made
        }
    }
}
