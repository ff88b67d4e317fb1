import Foundation

/// Text that would steer a terminal, as a shared lesson pack, a certificate or a network client could carry it,
/// and the check that none of it reaches a screen.
public enum HostileText {
    /// The title from issue 12: it retitles the terminal (OSC 0, ended by BEL), then clears the screen (CSI 2J).
    public static let title = "EVIL\u{1B}]0;pwned\u{07}\u{1B}[2J"
    /// `title` as every front end shows it.
    public static let shownTitle = #"EVIL\e]0;pwned\a\e[2J"#

    /// The characters of `text` a terminal would obey or that would reorder or break a line: every control
    /// character (C0, DEL, C1) except the line feed between lines, the line and paragraph separators, and the
    /// bidirectional formatting characters. Written from Unicode's categories, not from the code under test.
    public static func steering(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            switch scalar.properties.generalCategory {
            case .control: scalar != "\n"
            case .lineSeparator, .paragraphSeparator: true
            case .format: scalar.properties.isBidiControl
            default: false
            }
        }
    }

    /// The id of `lesson`'s file: its name holds ESC too, as a file name can.
    public static let lessonID = "99-hostile\u{1B}[2J"

    /// A lesson (the attacker's CA installed, so the attacker reads the login) whose every kind of text carries
    /// control characters: the file name, title, group, summary, lesson, a try's note, a certificate's name and
    /// organization, and the request's password (a method or path that does is refused when the lesson loads: it would
    /// break the request line). It passes its expectations, so every front end shows all of it.
    public static let lesson = #"""
        version: 3
        title: "EVIL\e]0;pwned\a\e[2J"
        group: "Group\e[31m red\x9B2J"
        summary: "\e[2JAlice\u202E installed the attacker's CA."
        lesson:
          story: "Alice installed a profile. \e]0;pwned\a Her app keeps the default policy.\n\nWill the app accept the forged chain?"
          reveal: "The forged chain ends at a root the device trusts.\r\n[pass] chainTrust: a line that is not a trace step"
          tries:
            - keys: "t"
              trusted: false
              note: "Watch\e[2J the trace."
        clock: "2026-06-01T00:00:00Z"
        world:
          authorities:
            - id: bank-root
              deviceTrust: system
            - id: attacker-ca
              name: "attacker\e]0;owned\a-ca"
              deviceTrust: userInstalled
          leaves:
            - id: bank-leaf
              issuer: bank-root
              dnsNames: [bank.test]
              organization: "Example\x7F Bank\r\n[pass] chainTrust: fake"
        server:
          host: bank.test
          leaf: bank-leaf
        attacker:
          attack: forge
          authority: attacker-ca
        client:
          library: afnetworking-4
          policy:
            pinningMode: none
            allowInvalidCertificates: false
            validatesDomainName: true
            pinnedCertificates: []
        request:
          body: "username=alice&password=hunter2\e[8m"
          secret: "hunter2\e[8m"
        expect:
          trusted: true
          decidingCheck: chainTrust
          attackerSawPlaintext: true
          serverReceivedRequest: true
        """#

    /// Commands for bash that reach the lab's attacker at `host`:`port` as hostile clients: a `curl -k` whose method
    /// and User-Agent carry ESC and BEL (its CONNECT is refused: llhttp takes no control character in a header), the
    /// same curl straight to the attacker's TLS (its request read, then refused by the bank), a CONNECT for a host that
    /// starts with ESC (refused), and a ClientHello whose SNI carries ESC (not routed). Each makes one connection.
    public static func labClients(host: String, port: String) -> [String] {
        [
            #"curl -sk --proxy http://\#(host):\#(port) -A $'curl\e]0;pwned\a' -X $'POST\e[2J' -d password=x https://bank.test/login"#,
            // The same request straight to the attacker's TLS, where no CONNECT head stands before it.
            #"curl -sk --resolve bank.test:\#(port):\#(host) -A $'curl\e]0;pwned\a' -X $'POST\e[2J' -d password=x https://bank.test:\#(port)/login"#,
            #"exec 3<>/dev/tcp/\#(host)/\#(port); printf 'CONNECT \e[2Jevil:443 HTTP/1.1\r\n\r\n' >&3; cat <&3"#,
            #"openssl s_client -connect \#(host):\#(port) -servername $'evil\e[2J' </dev/null"#,
        ]
    }

    /// How the lab shows the first of `labClients`, the curl whose CONNECT carries its hostile User-Agent.
    public static let refusedCurl = "'CONNECT bank.test:443 HTTP/1.1' with 400 Bad Request (malformed HTTP: an invalid header)"

    /// How the lab shows the second of `labClients`: what the attacker read of its request, escaped.
    public static let readRequest = #"READ POST\e[2J /login"#

    /// Writes `lesson` as `lessonID`.yaml into a new directory and returns the directory (the caller removes it).
    public static func writeLesson() throws -> String {
        let directory = NSTemporaryDirectory() + "mitmsim-hostile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(lesson.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(lessonID).yaml"))
        return directory
    }
}
