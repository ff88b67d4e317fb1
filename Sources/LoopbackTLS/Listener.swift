/// Accepts connections on 127.0.0.1 and handles each on its own joinable thread.
///
/// `stop()` wakes every blocked thread (by shutting its socket down) and joins them all, so when it
/// returns no thread of this listener runs and no descriptor of it is open.
final class Listener: @unchecked Sendable {
    private let socket: Socket
    private var acceptThread: WorkerThread?
    private let active = Locked<(open: [Int32: Socket], workers: [(WorkerThread, Locked<Bool>)])>(([:], []))

    var port: UInt16 { socket.localPort }

    init(port: UInt16, handler: @escaping @Sendable (Socket) -> Void) throws {
        socket = try Socket.listen(port: port)
        acceptThread = try WorkerThread { [socket, active] in
            while let connection = socket.accept() {
                let finished = Locked(false)
                active.withLock { state in
                    // Reap workers that are done, so a long-running lab does not keep dead threads around.
                    let (done, running) = (state.workers.filter { $0.1.withLock { $0 } }, state.workers.filter { !$0.1.withLock { $0 } })
                    done.forEach { $0.0.join() }
                    state.workers = running
                    state.open[connection.descriptor] = connection
                }
                do {
                    let worker = try WorkerThread {
                        handler(connection)
                        // Forget it before closing: the descriptor number may be reused at once.
                        active.withLock { _ = $0.open.removeValue(forKey: connection.descriptor) }
                        connection.close()
                        finished.withLock { $0 = true }
                    }
                    active.withLock { $0.workers.append((worker, finished)) }
                } catch {
                    active.withLock { _ = $0.open.removeValue(forKey: connection.descriptor) }
                    connection.close()
                }
            }
        }
    }

    func stop() {
        socket.shutdown()
        acceptThread?.join()
        let workers = active.withLock { state in
            state.open.values.forEach { $0.shutdown() }
            return state.workers
        }
        workers.forEach { $0.0.join() }
        socket.close()
    }

    deinit { stop() }
}
