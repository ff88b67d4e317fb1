import ArgumentParser
import PKI

/// A key type on the command line, by its name in scenario files (`p256`, `rsa2048`, …).
extension KeyType: ExpressibleByArgument {}
