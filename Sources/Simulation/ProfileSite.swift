import Foundation
import LoopbackTLS
import PKI

/// The attacker's "Wi-Fi security profile" site, on the proxy's own port over plain HTTP: the lure
/// that gets a device to trust the attacker's CA, which is how lesson 03's story happens for real.
///
/// `GET /` is a page that links the CA as PEM, as DER (`.cer` and `.crt`) and inside an Apple
/// configuration profile (`.mobileconfig`), gives the steps that install it on iOS, Android, macOS and
/// Firefox, sends the device to the lab's trust check, and says what installing it means; those files are
/// served at their paths, every other path is 404.
struct ProfileSite: HTTPApplication {
    /// The CA the site offers: the lab's attacker CA, which signs every forgery.
    let authority: Certificate
    /// The host the lab's attacker intercepts (named on the page).
    let bankHost: String
    /// The lab's trust check, which the page sends a device to once it has installed the CA.
    let trustCheckURL: String

    static let pemPath = "/wifi-security-ca.pem"
    static let cerPath = "/wifi-security-ca.cer"
    static let crtPath = "/wifi-security-ca.crt"
    static let profilePath = "/wifi-security.mobileconfig"

    func respond(to request: HTTPMessage) -> HTTPMessage {
        guard let (method, path) = request.requestTarget, method == "GET" else {
            var response = HTTPMessage.response(405, "Method Not Allowed", body: Array("Only GET is served here.\n".utf8), contentType: "text/plain")
            response.headers.append("Allow: GET")
            return response
        }
        if path == "/" { return .response(200, "OK", body: Array(page.utf8)) }
        guard let file = file(path) else {
            return .response(404, "Not Found", body: Array("Nothing here. The profile page is at /.\n".utf8), contentType: "text/plain")
        }
        var response = HTTPMessage.response(200, "OK", body: file.body, contentType: file.type)
        response.headers.append("Content-Disposition: attachment; filename=\"\(path.dropFirst())\"")
        return response
    }

    /// What each path serves.
    private func file(_ path: String) -> (body: [UInt8], type: String)? {
        switch path {
        case Self.pemPath: (try? authority.pemEncoded()).map { ($0, "application/x-pem-file") }
        case Self.cerPath, Self.crtPath: (authority.der, "application/x-x509-ca-cert")
        case Self.profilePath: (Array(Self.configurationProfile(installing: authority).utf8), "application/x-apple-aspen-config")
        default: nil
        }
    }

    private var page: String {
        let name = authority.label.markupEscaped
        // Settings, Keychain Access and Firefox list a CA by its common name.
        let listed = "'\((authority.subject.commonName ?? authority.label).markupEscaped)'"
        let check = trustCheckURL.markupEscaped
        let offer = """
            <p>To use this Wi-Fi network, install its security profile:</p>
            <ul>
            <li><a href="\(Self.profilePath)">iPhone, iPad, Mac: configuration profile</a></li>
            <li><a href="\(Self.crtPath)">Android, Windows: certificate (.crt)</a>, also as <a href="\(Self.cerPath)">.cer</a></li>
            <li><a href="\(Self.pemPath)">Linux, Firefox, curl, Python: certificate (PEM)</a></li>
            </ul>
            <h2>Installing it</h2>
            <h3>iPhone, iPad</h3>
            <ol>
            <li>Open this page in Safari, tap the configuration profile and allow the download.</li>
            <li>Settings, Profile Downloaded (or General, VPN &amp; Device Management): Install, then your passcode.</li>
            <li>Settings, General, About, Certificate Trust Settings: switch on full trust for \(listed). This is the \
            step most people miss: until then websites and apps do not trust it.</li>
            </ol>
            <p>To remove it: Settings, General, VPN &amp; Device Management, the profile, Remove Profile.</p>
            <h3>Android</h3>
            <ol>
            <li>Download the .crt certificate.</li>
            <li>Settings, Security (on newer versions Security &amp; privacy, More security settings), Encryption &amp; \
            credentials, Install a certificate, CA certificate, then choose the file.</li>
            </ol>
            <p>It is installed as a user CA. Since Android 7, apps trust user CAs only when they opt in, so most apps \
            ignore it; Chrome trusts it. To remove it: Encryption &amp; credentials, Trusted credentials, User.</p>
            <h3>Mac</h3>
            <ol>
            <li>Download the PEM certificate and double-click it: Keychain Access adds it to the login keychain.</li>
            <li>In Keychain Access, open \(listed), then Trust, and set "When using this certificate" to Always Trust; \
            close it and give your password.</li>
            </ol>
            <p>To remove it: Keychain Access, login, Certificates, \(listed), Delete.</p>
            <h3>Firefox (any system)</h3>
            <ol>
            <li>Download the PEM certificate.</li>
            <li>Settings, Privacy &amp; Security, Certificates, View Certificates, Authorities, Import: choose the \
            file and tick "Trust this CA to identify websites".</li>
            </ol>
            <p>To remove it: the same Authorities list, \(listed), Delete or Distrust.</p>
            <h2>Trust check</h2>
            <p>Open <a href="\(check)">\(check)</a> on the device. If the page says "This device trusts the lab's CA", \
            it does, and the teacher's screen says so too. If the browser warns that the connection is not private, \
            the device does not trust the CA yet (and the teacher's screen says that): do not click through the \
            warning, which would only make an exception for that page.</p>
            <h2>What installing it means</h2>
            <p>This is the attacker's page in the mitmsim classroom lab, and every link above is the attacker's \
            certificate authority, '\(name)'. A device that trusts it as a root (on iPhone and iPad, once full \
            trust is also turned on under Settings, General, About, Certificate Trust Settings) accepts the \
            certificates it signs, for any website, without a warning. Whoever holds its private key can then \
            impersonate any website to that device: in this lab, the attacker forges certificates for \
            \(bankHost.markupEscaped) and reads what a device sends there through it. Apps that pin their server's certificate or \
            public key still refuse the forgery. Remove the certificate after the class.</p>
            """
        return """
            <html><head><title>Wi-Fi security profile</title><meta name="viewport" content="width=device-width"></head><body>
            <h1>Wi-Fi security profile</h1>
            \(offer)
            </body></html>

            """
    }

    /// An iOS/macOS configuration profile with one `com.apple.security.root` payload carrying the CA's DER.
    ///
    /// Its UUIDs come from the CA's fingerprint, so the same CA always gives the same profile (a device
    /// that installs it again replaces it rather than adding a second one).
    static func configurationProfile(installing authority: Certificate) -> String {
        let fingerprint = authority.sha256Hex
        func uuid(_ salt: String) -> String {
            let hex = OpenSSL.sha256(Array((salt + fingerprint).utf8)).hexString.uppercased()
            return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
                String(hex.dropFirst(range.lowerBound).prefix(range.count))
            }.joined(separator: "-")
        }
        let identifier = "test.mitmsim.lab.\(fingerprint.prefix(16))"
        let name = authority.label.markupEscaped
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>PayloadContent</key>
                <array>
                    <dict>
                        <key>PayloadCertificateFileName</key>
                        <string>wifi-security-ca.cer</string>
                        <key>PayloadContent</key>
                        <data>\(Data(authority.der).base64EncodedString())</data>
                        <key>PayloadDescription</key>
                        <string>Adds the root certificate '\(name)'</string>
                        <key>PayloadDisplayName</key>
                        <string>\(name)</string>
                        <key>PayloadIdentifier</key>
                        <string>\(identifier).root</string>
                        <key>PayloadType</key>
                        <string>com.apple.security.root</string>
                        <key>PayloadUUID</key>
                        <string>\(uuid("root"))</string>
                        <key>PayloadVersion</key>
                        <integer>1</integer>
                    </dict>
                </array>
                <key>PayloadDescription</key>
                <string>The mitmsim classroom lab's attacker CA, '\(name)'. Remove it after the class.</string>
                <key>PayloadDisplayName</key>
                <string>Wi-Fi security profile</string>
                <key>PayloadIdentifier</key>
                <string>\(identifier)</string>
                <key>PayloadRemovalDisallowed</key>
                <false/>
                <key>PayloadType</key>
                <string>Configuration</string>
                <key>PayloadUUID</key>
                <string>\(uuid("profile"))</string>
                <key>PayloadVersion</key>
                <integer>1</integer>
            </dict>
            </plist>

            """
    }
}
