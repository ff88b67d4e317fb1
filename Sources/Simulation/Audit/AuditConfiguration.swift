import Foundation
import PKI
import Policies

/// The configuration files an audit reads, each parsed as written, with the file it came from.
public struct AuditConfiguration: Sendable {
    /// A parsed input and the file it was read from.
    public struct Source<Value: Sendable>: Sendable {
        public let file: String
        public let value: Value
    }

    /// What an audit reads from an Info.plist.
    public struct InfoPlistSettings: Sendable {
        /// `NSAppTransportSecurity`, with Apple's defaults for what it leaves out.
        public var ats: AppTransportSecurity
        /// Key paths of Apple's ATS keys that mitmsim does not model: read, warned about, not simulated.
        public var unmodelledKeys: [String]
        /// `TSKConfiguration`, when the app configures TrustKit in its Info.plist.
        public var trustKit: TrustKitConfiguration.Plist?
    }

    public var infoPlist: Source<InfoPlistSettings>?
    public var networkSecurityConfig: Source<NetworkSecurityConfig>?
    /// The app's `targetSdkVersion`, which decides whether Android trusts user-installed CAs by default (≤ 23 does).
    public var targetSDK: Int
    public var okHttpPins: Source<[CertificatePinner.PinLine]>?
    public var afnetworking: Source<AFNetworkingAuditFile>?
    /// The real chains, leaf first, one per `--chain` file.
    public var chains: [Source<[Certificate]>]
    /// The client libraries whose judges the audit runs (`ClientLibrary.auditJudges`): mitmsim's own unless the caller adds some.
    public var libraries = ClientLibraries.builtIn

    /// A current Android SDK, the default `--target-sdk`.
    public static let defaultTargetSDK = 34

    /// Reads every file named; the first that cannot be used throws a one-line error naming it and the key or line.
    public static func read(
        infoPlist: String? = nil, androidNSC: String? = nil, targetSDK: Int = defaultTargetSDK, okHttpPins: String? = nil,
        afnetworking: String? = nil, chains: [String] = []
    ) throws -> AuditConfiguration {
        guard infoPlist != nil || androidNSC != nil || okHttpPins != nil || afnetworking != nil else {
            throw AuditError("give at least one configuration to audit: --info-plist, --android-nsc, --okhttp-pins or --afnetworking")
        }
        let latest = NetworkSecurityConfig.latestTargetSdkVersion
        guard (1...latest).contains(targetSDK) else {
            throw AuditError("--target-sdk \(targetSDK) is not an Android API level mitmsim models (1 to \(latest))")
        }
        guard chains.count <= AuditLimits.chains else { throw AuditError("\(chains.count) --chain files, the most is \(AuditLimits.chains)") }
        let plist = try infoPlist.map { file in
            let read: InfoPlist.Audited
            do {
                read = try InfoPlist.audited(at: file)
            } catch {
                throw AuditError("\(error)")
            }
            let named =
                read.ats.exceptionDomains.keys.sorted().map { ("NSAppTransportSecurity.NSExceptionDomains.\($0)", $0) }
                + (read.trustKit?.pinnedDomains.keys.sorted() ?? []).map { ("TSKConfiguration.TSKPinnedDomains.\($0)", $0) }
            if let (path, address) = named.first(where: { CertificateSpec.isIPAddress($0.1) }) {
                throw ScenarioError(file: file, path: path, reason: ConfigurationError.ipAddressRefusal(address))
            }
            return Source(file: file, value: InfoPlistSettings(ats: read.ats, unmodelledKeys: read.unmodelledKeys, trustKit: read.trustKit))
        }
        return AuditConfiguration(
            infoPlist: plist,
            networkSecurityConfig: try androidNSC.map {
                try file($0, kind: "a network security config") { bytes throws(ConfigurationError) in
                    try NetworkSecurityConfig(xml: bytes, depthLimit: AuditLimits.xmlDepth)
                }
            },
            targetSDK: targetSDK,
            okHttpPins: try okHttpPins.map {
                try file($0, kind: "an OkHttp pin file") { bytes throws(ConfigurationError) in try CertificatePinner.pins(inPinFile: bytes) }
            },
            afnetworking: try afnetworking.map { Source(file: $0, value: try AFNetworkingAuditFile.read($0)) },
            chains: try chains.map { Source(file: $0, value: try readChain($0)) })
    }

    /// The configuration file at `path`, read within `AuditLimits.configurationBytes` and parsed by `parse`;
    /// a refusal is one line naming the file and where in it.
    static func file<Value>(_ path: String, kind: String, _ parse: ([UInt8]) throws(ConfigurationError) -> Value) throws(ScenarioError) -> Source<Value> {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: AuditLimits.configurationBytes, kind: kind)
        } catch {
            throw ScenarioError(file: path, path: "", reason: error.reason)
        }
        return try parsed(bytes, file: path, parse)
    }

    /// `bytes`, read from `file`, parsed by `parse`; a refusal is one line naming the file and where in it.
    package static func parsed<Value>(_ bytes: [UInt8], file: String, _ parse: ([UInt8]) throws(ConfigurationError) -> Value) throws(ScenarioError)
        -> Source<Value>
    {
        do {
            return Source(file: file, value: try parse(bytes))
        } catch {
            throw ScenarioError(file: file, path: error.path, reason: error.reason)
        }
    }

    /// A PEM or DER chain, leaf first.
    static func readChain(_ file: String) throws -> [Certificate] {
        let certificates: [Certificate]
        do {
            certificates = try Certificate.loadAll(from: file)
        } catch {
            throw AuditError("\(error)")
        }
        guard let leaf = certificates.first, !leaf.isAuthority else {
            throw AuditError("\(file): the first certificate is a CA; a chain starts with the server's leaf")
        }
        guard certificates.count <= AuditLimits.chainCertificates else {
            throw AuditError("\(file): holds \(certificates.count) certificates, the most mitmsim reads from a chain is \(AuditLimits.chainCertificates)")
        }
        if let index = certificates.indices.dropFirst().first(where: { !certificates[$0].isAuthority }) {
            throw AuditError("\(file): certificate \(index + 1) is not a CA; after the leaf a chain holds its issuers")
        }
        return certificates
    }
}

/// Input an audit cannot use, in one line that names the file and, where there is one, the key or line.
public struct AuditError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = String(description.map { $0.isNewline ? " " : $0 }) }
}
