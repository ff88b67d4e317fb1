import Policies

extension Scenario {
    /// The Info.plist's `NSPinnedDomains` with the keys of the world certificates it names: what every SSL policy of an
    /// iOS app's process carries, whichever library (AFNetworking, Alamofire, TrustKit) evaluates the chain.
    func infoPlistPins(in world: World) throws -> InfoPlistPins {
        try InfoPlistPins(ats: client.ats, in: world, file: file, path: "client.ats.NSPinnedDomains")
    }
}

extension InfoPlistPins {
    /// `ats`'s pins with the key of each world certificate they name; `file` and `path` name the field an error is about.
    init(ats: AppTransportSecurity, in world: World, file: String, path: String) throws {
        let keys = try ats.pinnedCertificateIDs.map { id in (id, try world.entry(id, file: file, path: path).certificate.publicKeySHA256Base64) }
        self.init(ats: ats, pinnedKeys: Dictionary(uniqueKeysWithValues: keys))
    }
}
