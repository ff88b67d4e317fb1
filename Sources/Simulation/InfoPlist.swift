import Foundation
import PKI
import Policies

/// App Transport Security read from a real Info.plist, XML or binary, as an app ships it (`client.infoPlist`).
///
/// Only the `NSAppTransportSecurity` dictionary is read, with the key names and checks of `client.ats`;
/// every other top-level key is the app's business and ignored. Foundation's `PropertyListDecoder`
/// decodes the same `Decodable` types as the YAML, so an error names its key path inside the plist.
package enum InfoPlist {
    /// Why a plist was refused, in one line: the file, the key path inside it when there is one, the reason.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// The plist's top level: only `NSAppTransportSecurity` (and, for an audit, `TSKConfiguration`) is read, so other keys are no error.
    private struct TopLevel: Decodable {
        var ats: ATSKeys?
        var trustKit: TrustKitConfiguration.Plist?

        enum CodingKeys: String, CodingKey {
            case ats = "NSAppTransportSecurity"
            case trustKit = "TSKConfiguration"
        }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            ats = try container.decodeIfPresent(ATSKeys.self, forKey: .ats)
            // A lesson's Info.plist is read for ATS alone; only an audit reads TrustKit's configuration.
            if decoder.userInfo[.unmodelledATSKeys] != nil { trustKit = try container.decodeIfPresent(TrustKitConfiguration.Plist.self, forKey: .trustKit) }
        }
    }

    /// What an audit reads from an Info.plist: ATS, the ATS keys it passed over, and TrustKit's configuration.
    package struct Audited: Sendable {
        var ats: AppTransportSecurity
        /// Key paths of Apple's ATS keys mitmsim does not model, in the order met.
        var unmodelledKeys: [String]
        var trustKit: TrustKitConfiguration.Plist?
    }

    /// The ATS settings of the Info.plist at `path`; the defaults (ATS fully on) when it has no `NSAppTransportSecurity`.
    static func appTransportSecurity(at path: String) throws(Refusal) -> AppTransportSecurity {
        try read(at: path, auditing: false).ats
    }

    /// The Info.plist at `path` as an audit reads it: ATS keys mitmsim does not model are listed, not refused.
    static func audited(at path: String) throws(Refusal) -> Audited {
        try read(at: path, auditing: true)
    }

    /// `bytes`, read from `file`, as an audit reads an Info.plist (for the fuzzer, which has no file).
    package static func audited(_ bytes: [UInt8], file: String) throws(Refusal) -> Audited {
        try read(bytes, file: file, auditing: true)
    }

    private static func read(at path: String, auditing: Bool) throws(Refusal) -> Audited {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: ScenarioLimits.infoPlistBytes, kind: "an Info.plist")
        } catch {
            throw Refusal(description: ScenarioError(file: path, path: "", reason: error.reason).description)
        }
        return try read(bytes, file: path, auditing: auditing)
    }

    private static func read(_ bytes: [UInt8], file path: String, auditing: Bool) throws(Refusal) -> Audited {
        func refuse(_ keyPath: String, _ reason: String) -> Refusal {
            Refusal(description: ScenarioError(file: path, path: keyPath, reason: reason).description)
        }
        guard !bytes.isEmpty else { throw refuse("", "is empty; an Info.plist is an XML or binary property list") }
        let isBinary = bytes.starts(with: "bplist00".utf8)
        // The text before the first tag may be a byte order mark and white space (in UTF-16, each with a zero byte).
        let isXML = bytes.drop { [0xEF, 0xBB, 0xBF, 0xFE, 0xFF, 0x00, 0x20, 0x09, 0x0A, 0x0D].contains($0) }.first == UInt8(ascii: "<")
        guard isBinary || isXML else { throw refuse("", "is neither an XML nor a binary property list (an Info.plist is one or the other)") }
        // Foundation's XML plist reader parses the whole file, recursing once per nested element, about 1 KB of stack
        // each, and tokenizes on its own terms (10,000 levels hidden in an attribute value overflowed an 8 MB stack):
        // it reads only the plist as libxml2 read it, within the depth limit, written again as plain elements and
        // text. Its binary reader reads lazily: only the objects the keys below ask for, never deeper than those keys go.
        var plist = Data(bytes)
        if !isBinary {
            do {
                plist = Self.plainXML(
                    try XMLTree.root(of: bytes, depthLimit: ScenarioLimits.infoPlistDepth, prolog: .externalDoctypeOnly, kind: "an Info.plist"))
            } catch {
                throw refuse(error.path, error.reason)
            }
        }
        let unmodelled = UnmodelledATSKeys()
        let decoder = PropertyListDecoder()
        if auditing { decoder.userInfo[.unmodelledATSKeys] = unmodelled }
        decoder.userInfo[.infoPlistIdentities] = true
        do {
            let top = try decoder.decode(TopLevel.self, from: plist)
            return Audited(ats: top.ats?.value ?? AppTransportSecurity(), unmodelledKeys: unmodelled.keys.withLock { $0 }, trustKit: top.trustKit)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw refuse("", "is not a valid property list" + (detail.map { " (\($0))" } ?? ""))
        } catch let error as DecodingError {
            throw Refusal(description: ScenarioLoader.describe(error, in: nil, file: path).description)
        } catch {
            throw refuse("", "cannot be read as a property list (\(error))")
        }
    }
}
