import Foundation

/// Runs `body(0)`, …, `body(count - 1)`, each on a thread of its own, and waits for them all.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}

/// Runs `body` on a thread of its own and suspends until it returns.
///
/// Swift Testing runs every test on a pool of as many threads as cores (two on the machines that run the suite), so
/// a test that blocks for seconds (waiting for a timeout, a child process or a crowd of clients) keeps every other
/// test off that thread meanwhile. Awaiting its waits here instead lets the others run. Expectations belong
/// outside `body`, in the test's own task, where Swift Testing attributes them to the test.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result(catching: body)) }.start()
    }
}
