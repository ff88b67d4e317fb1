internal import COpenSSL
import Foundation
import PKI

/// A neutral load client for benchmarks, meant to run in a process of its own: new TLS connections to
/// 127.0.0.1, one after another on each thread (SNI, TCP_NODELAY, no session resumption, no certificate
/// verification), each sending one GET and reading the whole response (`HTTPFraming`).
///
/// It records no events and judges nothing, so the process that drives a server costs only OpenSSL's client
/// side, whichever server it drives: mitmsim's proxy, another proxy or the origin itself.
package enum LoadClient {
    /// What a run did.
    package struct Tally: Sendable, Equatable {
        package var connections = 0
        package var failures = 0
        package var seconds = 0.0
        /// The median time of a successful connection, from connect to the last byte read.
        package var medianMilliseconds = 0.0
        /// CPU time (user and system) the client's process spent meanwhile: the client side's own cost.
        package var cpuSeconds = 0.0

        package init(connections: Int = 0, failures: Int = 0, seconds: Double = 0, medianMilliseconds: Double = 0, cpuSeconds: Double = 0) {
            self.connections = connections
            self.failures = failures
            self.seconds = seconds
            self.medianMilliseconds = medianMilliseconds
            self.cpuSeconds = cpuSeconds
        }

        /// "connections failures seconds median-ms cpu-seconds", the line a load-client process prints.
        package var line: String { "\(connections) \(failures) \(seconds) \(medianMilliseconds) \(cpuSeconds)" }

        package init?(line: String) {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let connections = Int(fields[0]), let failures = Int(fields[1]), let seconds = Double(fields[2]),
                let median = Double(fields[3]), let cpu = Double(fields[4])
            else { return nil }
            self.init(connections: connections, failures: failures, seconds: seconds, medianMilliseconds: median, cpuSeconds: cpu)
        }
    }

    /// Makes `connections` successful connections in all (or fewer, when `seconds` run out first) with
    /// `concurrency` threads; a failed connection does not count towards `connections`.
    package static func run(port: UInt16, host: String, path: String = "/", connections: Int, seconds: Double, concurrency: Int = 1) throws -> Tally {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw NetworkError.tls(operation: "SSL_CTX_new", details: OpenSSL.drainErrors()) }
        defer { SSL_CTX_free(context) }
        SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        // Verifying nothing takes this callback: without it OpenSSL still builds and checks the chain, only to
        // ignore the verdict, which the proxy's upstream side does not pay either (`takeServerCertificatesUnjudged`).
        SSL_CTX_set_cert_verify_callback(context, { _, _ in 1 }, nil)
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
        let shared = Locked((started: 0, failures: 0, latencies: [Double]()))
        let clock = ContinuousClock()
        let start = clock.now
        let cpuBefore = processCPUSeconds()
        let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
        let unsafeContext = UnsafeContext(context)
        let threads = try (0..<max(1, concurrency)).map { _ in
            try WorkerThread {
                while clock.now < deadline {
                    let claimed = shared.withLock { state in
                        guard state.started < connections else { return false }
                        state.started += 1
                        return true
                    }
                    guard claimed else { return }
                    let began = clock.now
                    let succeeded = (try? exchange(context: unsafeContext.pointer, port: port, host: host, request: request)) == true
                    let elapsed = began.duration(to: clock.now)
                    shared.withLock { state in
                        if succeeded {
                            state.latencies.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
                        } else {
                            state.started -= 1
                            state.failures += 1
                        }
                    }
                }
            }
        }
        for thread in threads { thread.join() }
        let elapsed = start.duration(to: clock.now)
        return shared.withLock { state in
            let sorted = state.latencies.sorted()
            return Tally(
                connections: sorted.count, failures: state.failures,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                medianMilliseconds: sorted.isEmpty ? 0 : sorted[sorted.count / 2], cpuSeconds: processCPUSeconds() - cpuBefore)
        }
    }

    /// This process's CPU time so far, user and system.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return [usage.ru_utime, usage.ru_stime].map { Double($0.tv_sec) + Double($0.tv_usec) / 1e6 }.reduce(0, +)
    }

    /// The SSL_CTX, shared read-only by the threads (SSL_new may be called on one context from any thread).
    private struct UnsafeContext: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
    }

    /// One connection: true when a complete response arrived.
    private static func exchange(context: OpaquePointer, port: UInt16, host: String, request: [UInt8]) throws -> Bool {
        let socket = try Socket.connect(port: port)
        defer { socket.close() }
        guard let ssl = SSL_new(context) else { return false }
        defer { SSL_free(ssl) }
        SSL_set_fd(ssl, socket.descriptor)
        _ = host.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
        defer { ERR_clear_error() }
        guard SSL_connect(ssl) == 1, request.withUnsafeBytes({ SSL_write(ssl, $0.baseAddress, Int32($0.count)) }) == request.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let framing = HTTPFraming(role: .response, longestBody: .max, keepsBody: false)  // it keeps no body: any length will do
        while !framing.isComplete {
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            // The end of the stream completes a response that runs to it, and no other.
            guard count > 0 else { return (try? framing.finish()) != nil && framing.head != nil }
            guard (try? framing.feed(buffer[..<Int(count)])) != nil else { return false }
        }
        return true
    }
}
