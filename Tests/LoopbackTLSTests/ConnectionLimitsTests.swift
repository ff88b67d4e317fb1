import Testing

@testable import LoopbackTLS

/// How a listener's caps count connections and word their refusals: one notice when an episode of refusals
/// starts, one with the count when it ends, so a flood of connections is two lines of a log.
struct ConnectionLimitsTests {
    static let first = try! ListenAddress("192.0.2.1")
    static let second = try! ListenAddress("192.0.2.2")
    static let own = try! ListenAddress("192.0.2.9")
    static let limits = ConnectionLimits(perAddress: 2, total: 3, exempt: own)

    @Test func anAddressPastItsCapIsRefusedWithOneNoticeAndTheCountWhenItIsBackUnder() {
        var tally = ConnectionLimits.Tally()
        #expect(tally.admit(Self.first, under: Self.limits) == (true, nil))
        #expect(tally.admit(Self.first, under: Self.limits) == (true, nil))
        #expect(tally.admit(Self.first, under: Self.limits) == (false, .refusing(peer: Self.first, limit: 2)))
        #expect(tally.admit(Self.first, under: Self.limits) == (false, nil))
        // Another address is still admitted.
        #expect(tally.admit(Self.second, under: Self.limits) == (true, nil))
        #expect(tally.release(Self.first, under: Self.limits) == [.refused(peer: Self.first, count: 2)])
        #expect(tally.admit(Self.first, under: Self.limits) == (true, nil))
        #expect(tally.release(Self.first, under: Self.limits).isEmpty)
    }

    @Test func pastTheTotalEveryoneIsRefusedUntilAConnectionEndsAndTheExemptAddressCountsOnlyThere() {
        var tally = ConnectionLimits.Tally()
        for _ in 0..<3 { #expect(tally.admit(Self.own, under: Self.limits) == (true, nil)) }
        #expect(tally.admit(Self.second, under: Self.limits) == (false, .refusingOverTotal(limit: 3)))
        #expect(tally.admit(Self.own, under: Self.limits) == (false, nil))
        #expect(tally.release(Self.own, under: Self.limits) == [.refusedOverTotal(count: 2)])
        #expect(tally.admit(Self.second, under: Self.limits) == (true, nil))
    }
}
