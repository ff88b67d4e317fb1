/// Leaks LeakSanitizer finds in the toolchain's and the system's libraries, none in mitmsim's code, so that
/// `swift test --sanitize=address` reports only ours: Foundation's file reading loses its buffer when a
/// file is empty, `Process.run` never frees one weak reference, XCTest's entry point keeps its suite
/// runs, ncurses keeps the screen it began when `newterm` refuses a terminal, and FoundationXML never frees
/// the error it makes from a libxml2 parse error. One more is a false report: a multi-payload enum keeps its
/// case in the spare bits of its payload's pointer, which LeakSanitizer cannot follow, so the Alamofire model
/// tests' static tables of evaluators and policies look unreachable while they live for the whole run. The
/// sanitizer runtime calls these functions by their C names; a build without the sanitizer never does.
///
/// It lives in this module because both the `mitmsim` executable and the test bundle link it.
@_cdecl("__lsan_default_suppressions")
public func leakSanitizerSuppressions() -> UnsafePointer<UInt8> {
    // Matched against the mangled Swift names in each leak's allocation stack.
    let suppressions: StaticString = """
        leak:readBytesFromFile
        leak:7ProcessC3runyyKF
        leak:XCTMainMisc
        leak:new_prescr
        leak:_CFErrorCreateFromXMLInterface
        leak:ClientB0V5cases_WZ

        """
    return suppressions.utf8Start
}

/// Quiet about the suppressions it used: a command's standard error stays the one line its tests expect.
@_cdecl("__lsan_default_options")
public func leakSanitizerOptions() -> UnsafePointer<UInt8> {
    // Called before the sanitizer has set up its shadow memory: no local variable may live on the stack here.
    ("print_suppressions=0" as StaticString).utf8Start
}
