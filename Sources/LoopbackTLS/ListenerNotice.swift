/// Trouble a server's listener met and got over, for the log of a server that runs all day (a live lab):
/// nothing a connection's own events can say, since these connections never reached a handler.
public enum ListenerNotice: Sendable, Equatable {
    /// `accept()` failed for want of a resource (descriptors, buffers, memory): new connections wait in the
    /// queue while the listener retries every `retryMilliseconds`. Reported once, at the first failure.
    case acceptFailing(reason: String, retryMilliseconds: Int)
    /// `accept()` works again, after failing `failures` times.
    case acceptRecovered(failures: Int)
    /// A connection from `peer` was closed at once: that address holds `limit` connections already. Reported
    /// for the first such connection; the rest are counted.
    case refusing(peer: ListenAddress, limit: Int)
    /// `peer` is under its cap again: `count` of its connections were refused meanwhile.
    case refused(peer: ListenAddress, count: Int)
    /// A connection was closed at once: the server holds `limit` connections already. Reported for the first.
    case refusingOverTotal(limit: Int)
    /// The server is under its total cap again: `count` connections were refused meanwhile.
    case refusedOverTotal(count: Int)
}
