import Foundation

/// The long variants of the suite's loops, on request: `MITMSIM_SOAK=1 swift test` runs the soak and the fuzz tests at
/// their full sizes, and every matrix cell as a lesson; a plain `swift test` runs sizes that keep the whole suite quick
/// on two cores.
public enum Soak {
    /// Whether `MITMSIM_SOAK=1` asked for the long variants.
    public static let isRequested = ProcessInfo.processInfo.environment["MITMSIM_SOAK"] == "1"

    /// `quick` in a plain run, `long` when the long variants were asked for.
    public static func size(_ quick: Int, long: Int) -> Int { isRequested ? long : quick }
}
