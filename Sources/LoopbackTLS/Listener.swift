/// Accepts connections (on 127.0.0.1 unless told otherwise) and handles each on its own joinable thread.
///
/// `stop()` wakes every blocked thread (by shutting its socket down) and joins them all, so when it
/// returns no thread of this listener runs and no descriptor of it is open.
final class Listener: Sendable {
    /// A connection's thread and whether its handler has returned.
    struct Worker: Sendable {
        let thread: WorkerThread
        let finished: Locked<Bool>
    }

    private let socket: Socket
    private let acceptThread: WorkerThread
    private let active = Locked<(open: [Int32: Socket], workers: [Worker])>(([:], []))

    var port: UInt16 { socket.localPort }

    /// - Parameter handler: gets each connection with its number: 1, 2, … in the order they were accepted.
    init(address: ListenAddress = .loopback, port: UInt16, handler: @escaping @Sendable (Socket, Int) -> Void) throws {
        let socket = try Socket.listen(address: address, port: port)
        self.socket = socket
        acceptThread = try WorkerThread { [active] in
            var accepted = 0
            while let connection = socket.accept() {
                accepted += 1
                let number = accepted
                let finished = Locked(false)
                active.withLock { state in
                    // Reap workers that are done, so a long-running lab does not keep dead threads around.
                    state.workers = Self.reap(state.workers, isFinished: { $0.finished.withLock { $0 } }, join: { $0.thread.join() })
                    state.open[connection.descriptor] = connection
                }
                do {
                    let worker = try WorkerThread {
                        handler(connection, number)
                        // Forget it before closing: the descriptor number may be reused at once.
                        active.withLock { _ = $0.open.removeValue(forKey: connection.descriptor) }
                        connection.close()
                        finished.withLock { $0 = true }
                    }
                    active.withLock { $0.workers.append(Worker(thread: worker, finished: finished)) }
                } catch {
                    active.withLock { _ = $0.open.removeValue(forKey: connection.descriptor) }
                    connection.close()
                }
            }
        }
    }

    /// Joins the workers that are finished and returns the others.
    ///
    /// Each flag is read exactly once: a worker that finishes while this runs is either joined or kept
    /// for the next reap (or `stop()`), never dropped unjoined between two reads that disagree.
    static func reap<W>(_ workers: [W], isFinished: (W) -> Bool, join: (W) -> Void) -> [W] {
        var running: [W] = []
        for worker in workers {
            if isFinished(worker) { join(worker) } else { running.append(worker) }
        }
        return running
    }

    func stop() {
        socket.shutdown()
        acceptThread.join()
        let workers = active.withLock { state in
            for socket in state.open.values { socket.shutdown() }
            return state.workers
        }
        for worker in workers { worker.thread.join() }
        socket.close()
    }

    deinit { stop() }
}
