import PKI
import Testing

/// `IPAddress.bytes`, the one reading of an IP address in mitmsim (a certificate's SAN, OpenSSL's host check and
/// curl's `Curl_host_is_ipnum`): what `inet_pton` reads, and nothing else.
struct IPAddressTests {
    @Test("A dotted quad reads as its four bytes and an IPv6 address as its sixteen, however it is written")
    func addressesReadAsTheirBytes() {
        #expect(IPAddress.bytes("127.0.0.1") == [127, 0, 0, 1])
        #expect(IPAddress.bytes("::1") == Array(repeating: 0, count: 15) + [1])
        #expect(IPAddress.bytes("0:0:0:0:0:0:0:1") == IPAddress.bytes("::1"))
        #expect(IPAddress.bytes("::ffff:127.0.0.1") == Array(repeating: 0, count: 10) + [255, 255, 127, 0, 0, 1])
    }

    @Test("Host names and the forms inet_pton refuses (short, hexadecimal, out of range, bracketed, with a port) are no address")
    func otherTextIsNoAddress() {
        for text in ["bank.test", "", "127.1", "0x7f.0.0.1", "256.0.0.1", " 127.0.0.1", "[::1]", "127.0.0.1:443", "::1%lo"] {
            #expect(IPAddress.bytes(text) == nil, "\(text)")
        }
    }
}
