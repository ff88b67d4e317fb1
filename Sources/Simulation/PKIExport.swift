import Foundation
import PKI

/// Writes a scenario's PKI to a directory, in the forms apps, curl and Wireshark take.
public enum PKIExport {
    /// Returns the paths written. Keys and the `.p12` are 0600 and every other file 0644, whatever the umask; a
    /// directory it creates is 0755. The files replace the ones there together: when one cannot be written, none is
    /// (`FileWriter`), so a previous export stays whole.
    public static func write(_ scenario: Scenario, to directory: String) throws -> [String] {
        try write(World(scenario), to: directory)
    }

    /// Writes `world`, already built (the lab exports the certificates its servers use).
    public static func write(_ world: World, to directory: String) throws -> [String] {
        func shared(_ name: String, _ bytes: [UInt8]) -> FileWriter.File { FileWriter.File(name, bytes, permissions: 0o644) }
        func secret(_ name: String, _ bytes: [UInt8]) -> FileWriter.File { FileWriter.File(name, bytes, permissions: 0o600) }
        var files: [FileWriter.File] = []
        var pins: [String] = []
        for entry in world.entries {
            files += [
                shared("\(entry.id).pem", try entry.certificate.pemEncoded()), shared("\(entry.id).cer", entry.certificate.der),
                secret("\(entry.id).key", try entry.identity.privateKey.pemEncoded()),
            ]
            pins.append("\(entry.certificate.publicKeyPin)  \(entry.id)")
        }
        if let client = world.client {
            files += [
                shared("\(client.id).pem", try client.identity.certificate.pemEncoded()),
                secret("\(client.id).key", try client.identity.privateKey.pemEncoded()),
                secret("\(client.id).p12", client.pkcs12),
            ]
            pins.append("\(client.identity.certificate.publicKeyPin)  \(client.id) (.p12 password: \(client.password))")
        }
        // Each CT log's public key, for `evaluate --ct-log`, and its private key, so a restarted lab keeps its logs.
        for log in world.logs {
            files += [shared("ct-log-\(log.name).pub", log.listing.publicKeyPEM()), secret("ct-log-\(log.name).key", try log.key.pemEncoded())]
        }
        files.append(shared("server-chain.pem", try Certificate.pemBundle(world.server.chain)))
        files.append(shared("pins.txt", Array((pins.joined(separator: "\n") + "\n").utf8)))
        try FileWriter.createDirectory(directory)
        try FileWriter.write(files, into: directory)
        return files.map { directory + "/" + $0.name }
    }
}
