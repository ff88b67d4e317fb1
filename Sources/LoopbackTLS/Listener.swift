import Foundation

/// Accepts connections (on 127.0.0.1 unless told otherwise) and serves each on the thread that accepted it.
///
/// One thread at a time accepts. The moment it has a connection it hands the accepting on (to a worker that
/// finished an earlier connection and waits, else to a new thread) and serves the connection itself, so a
/// connection waits for no second thread to wake up: the hand-over happens while it is being served.
///
/// Reusing threads spares each connection a thread's creation and, above all, a fresh allocator cache:
/// OpenSSL's certificate parsing allocates heavily, and a new thread pays for every first allocation.
/// At most `maximumIdle` workers wait, each for a while (`idleTimeout`), so a quiet listener keeps one thread:
/// the one accepting.
///
/// With `ConnectionLimits`, a connection past a cap is closed as soon as it is accepted, so no client (and no
/// crowd of clients) can hold more than the caps' worth of threads. When the system runs out of descriptors or
/// memory, the accepting thread waits `acceptBackoff` and tries again (connections wait in the kernel's queue
/// meanwhile), so it serves again as soon as something is freed; only `stop()` ends it. Both are reported to
/// `onNotice`, in episodes (see `ListenerNotice`).
///
/// `stop()` wakes every blocked thread (by shutting its socket down, or waking a waiting worker) and
/// joins them all, so when it returns no thread of this listener runs and no descriptor of it is open.
final class Listener: Sendable {
    /// An accepted connection and its number.
    private struct Job: Sendable {
        let socket: Socket
        let number: Int
    }

    /// One worker thread's identity and the semaphore it waits on between connections.
    private final class Worker: Sendable {
        let wake = Semaphore()
        var id: ObjectIdentifier { ObjectIdentifier(self) }
    }

    private struct State {
        /// Connections being handled, so `stop()` can wake their threads.
        var open: [Int32: Socket] = [:]
        /// Every worker thread not joined yet.
        var threads: [ObjectIdentifier: WorkerThread] = [:]
        /// Workers waiting for their turn to accept.
        var idle: [Worker] = []
        /// Waiting workers told to accept next, until they take the turn.
        var called: Set<ObjectIdentifier> = []
        /// Workers that will take no more connections: their threads return without taking the lock again.
        var exited: [ObjectIdentifier] = []
        /// Connections accepted so far, which numbers them.
        var accepted = 0
        /// What `limits` count; unused without them.
        var tally = ConnectionLimits.Tally()
        var stopping = false
    }

    /// What every worker thread shares.
    private struct Shared: Sendable {
        let socket: Socket
        let state: Locked<State>
        /// Signalled by `stop()`, to cut short the accepting thread's wait after a failure.
        let wake: Semaphore
        let idleTimeout: TimeInterval
        let limits: ConnectionLimits?
        let onNotice: (@Sendable (ListenerNotice) -> Void)?
        let handler: @Sendable (Socket, Int) -> Void
    }

    static let maximumIdle = 8
    /// How long the accepting thread waits after the system refused it a resource, before it tries again.
    static let acceptBackoff: TimeInterval = 0.1

    private let shared: Shared

    var port: UInt16 { shared.socket.localPort }

    /// - Parameter idleTimeout: how long a worker waits for its turn to accept before its thread ends.
    /// - Parameter limits: caps on the connections handled at once (nil: none).
    /// - Parameter onNotice: told about refused connections and failing accepts, on the accepting thread or on
    ///   the thread of a connection that ends; must not block.
    /// - Parameter handler: gets each connection with its number: 1, 2, … in the order they were accepted.
    init(
        address: ListenAddress = .loopback, port: UInt16, idleTimeout: TimeInterval = 10, limits: ConnectionLimits? = nil,
        onNotice: (@Sendable (ListenerNotice) -> Void)? = nil, handler: @escaping @Sendable (Socket, Int) -> Void
    ) throws {
        let shared = Shared(
            socket: try Socket.listen(address: address, port: port), state: Locked(State()), wake: Semaphore(), idleTimeout: idleTimeout,
            limits: limits, onNotice: onNotice, handler: handler)
        self.shared = shared
        let first = Worker()
        let thread = try WorkerThread { Self.work(first, shared) }
        shared.state.withLock { $0.threads[first.id] = thread }
    }

    /// A worker's life: accept a connection, hand the accepting on, serve the connection, wait for the next turn;
    /// until the listener stops or the worker waited long enough (or enough others wait).
    private static func work(_ worker: Worker, _ shared: Shared) {
        var failures = 0
        while let job = accept(shared, failures: &failures) {
            guard handOver(shared) else {
                // No thread to accept meanwhile: this one keeps accepting, and the connection is closed.
                finish(job.socket, shared)
                continue
            }
            shared.handler(job.socket, job.number)
            // In the queue before the close: a client that sees this connection end may connect again at once, and
            // the accept that takes it should find this worker waiting rather than start a thread.
            let waits = queueForTurn(worker, shared)
            finish(job.socket, shared)
            guard waits, waitForTurn(worker, shared) else { return }
        }
        shared.state.withLock { $0.exited.append(worker.id) }
    }

    /// The next admitted connection, registered and numbered, or nil once the listener stops. While the system
    /// refuses a resource it waits `acceptBackoff` and tries again, counting the failures in `failures`, whose
    /// first and end it reports.
    private static func accept(_ shared: Shared, failures: inout Int) -> Job? {
        while true {
            // Checked on every turn: out of descriptors, accept() fails even on a socket that was shut down.
            guard !shared.state.withLock({ $0.stopping }) else { return nil }
            let connection: Socket
            do {
                guard let accepted = try shared.socket.accept() else { return nil }
                connection = accepted
                if failures > 0 { shared.onNotice?(.acceptRecovered(failures: failures)) }
                failures = 0
            } catch {
                failures += 1
                if failures == 1 { shared.onNotice?(.acceptFailing(reason: "\(error)", retryMilliseconds: Int(acceptBackoff * 1000))) }
                _ = shared.wake.wait(timeout: acceptBackoff)
                continue
            }
            let admission = shared.limits.map { limits in shared.state.withLock { $0.tally.admit(connection.peer, under: limits) } }
            if let notice = admission?.notice { shared.onNotice?(notice) }
            guard admission?.admitted ?? true else {
                connection.close()
                continue
            }
            // Registered under the lock that `stop()` sets `stopping` under, so `stop()` shuts it down.
            let number: Int? = shared.state.withLock { state in
                guard !state.stopping else { return nil }
                state.open[connection.descriptor] = connection
                state.accepted += 1
                return state.accepted
            }
            guard let number else {
                finish(connection, shared)
                return nil
            }
            return Job(socket: connection, number: number)
        }
    }

    /// Gives the turn to accept to a waiting worker, else to a new thread; false when no thread could be started.
    private static func handOver(_ shared: Shared) -> Bool {
        let (waiting, finished) = shared.state.withLock { state in
            let waiting = state.idle.popLast()
            if let waiting { state.called.insert(waiting.id) }
            return (waiting, takeExited(&state))
        }
        // Joined outside the lock; each of these threads has returned or is returning without it.
        for thread in finished { thread.join() }
        if let waiting {
            waiting.wake.signal()
            return true
        }
        let worker = Worker()
        do {
            let thread = try WorkerThread { work(worker, shared) }
            shared.state.withLock { $0.threads[worker.id] = thread }
            return true
        } catch {
            return false
        }
    }

    /// Closes a connection that ends, after removing it from the state; then tells `onNotice` what its end
    /// brings (a refusal episode over).
    private static func finish(_ connection: Socket, _ shared: Shared) {
        let notices = shared.state.withLock { state in
            // Forget it before closing: the descriptor number may be reused at once.
            _ = state.open.removeValue(forKey: connection.descriptor)
            return shared.limits.map { state.tally.release(connection.peer, under: $0) } ?? []
        }
        connection.close()
        for notice in notices { shared.onNotice?(notice) }
    }

    /// The threads of exited workers, removed from the state; an exited worker whose thread is not
    /// registered yet (it exited before `WorkerThread.init` returned) stays for the next call.
    private static func takeExited(_ state: inout State) -> [WorkerThread] {
        var finished: [WorkerThread] = []
        state.exited.removeAll { id in
            guard let thread = state.threads.removeValue(forKey: id) else { return false }
            finished.append(thread)
            return true
        }
        return finished
    }

    /// Puts the worker among those waiting for a turn to accept; false when it should exit instead: enough
    /// workers wait already, or the listener stops.
    private static func queueForTurn(_ worker: Worker, _ shared: Shared) -> Bool {
        shared.state.withLock { state in
            guard !state.stopping, state.idle.count < maximumIdle else {
                state.exited.append(worker.id)
                return false
            }
            state.idle.append(worker)
            return true
        }
    }

    /// Waits (at most `idleTimeout`) for a queued worker's turn to accept; false when it should exit instead:
    /// the listener stops, or no turn came.
    private static func waitForTurn(_ worker: Worker, _ shared: Shared) -> Bool {
        while true {
            let woken = worker.wake.wait(timeout: shared.idleTimeout)
            // Decided under the lock, so a turn handed over just as the wait timed out is still taken.
            let turn: Bool? = shared.state.withLock { state in
                if state.called.remove(worker.id) != nil { return true }
                // Woken without a turn: a wake-up left over from a hand-over that raced a timeout.
                if woken, !state.stopping { return nil }
                state.idle.removeAll { $0 === worker }
                state.exited.append(worker.id)
                return false
            }
            if let turn { return turn }
        }
    }

    func stop() {
        let state = shared.state
        state.withLock { $0.stopping = true }
        shared.wake.signal()
        shared.socket.shutdown()
        let idle = state.withLock { state in
            for socket in state.open.values { socket.shutdown() }
            return state.idle
        }
        for worker in idle { worker.wake.signal() }
        // A thread that accepted just before the stop may start another to accept after it: join until none is left.
        while case let threads = state.withLock({ state in
            defer { state.threads.removeAll() }
            return Array(state.threads.values)
        }), !threads.isEmpty {
            for thread in threads { thread.join() }
        }
        shared.socket.close()
    }

    deinit { stop() }
}
