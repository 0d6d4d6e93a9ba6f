#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few libcurl functions `CurlClient` calls, found with dlopen/dlsym in the libcurl that
/// FoundationNetworking already loaded (`libcurl.so.4`, libcurl's stable ABI).
///
/// `curl_easy_setopt` and `curl_easy_getinfo` are variadic; they are called through one fixed
/// prototype per argument kind (a long, a pointer, a function), which is how a variadic callee
/// reads a single integer or pointer argument on the Linux ABIs Swift supports (x86-64, AArch64).
struct LibCurl {
    typealias Callback = @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int

    let globalInit: @convention(c) (Int) -> Int32
    let easyInit: @convention(c) () -> OpaquePointer?
    let easyReset: @convention(c) (OpaquePointer?) -> Void
    let easyPerform: @convention(c) (OpaquePointer?) -> Int32
    let easyStrError: @convention(c) (Int32) -> UnsafePointer<CChar>?
    let slistAppendC: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    let slistFreeAll: @convention(c) (OpaquePointer?) -> Void
    private let setoptLong: @convention(c) (OpaquePointer?, Int32, Int) -> Int32
    private let setoptPointer: @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?) -> Int32
    private let setoptCallback: @convention(c) (OpaquePointer?, Int32, Callback) -> Int32
    private let getinfoLong: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<Int>) -> Int32

    struct Missing: Error {
        var reason: String
    }

    static func open() throws(Missing) -> LibCurl {
        guard let library = dlopen("libcurl.so.4", RTLD_NOW) ?? dlopen("libcurl.so", RTLD_NOW) else {
            throw Missing(reason: "cannot load libcurl (libcurl.so.4), which FoundationNetworking needs too")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(Missing) -> T {
            guard let found = dlsym(library, name) else { throw Missing(reason: "libcurl has no \(name)") }
            return unsafeBitCast(found, to: type)
        }
        return LibCurl(
            globalInit: try symbol("curl_global_init", as: (@convention(c) (Int) -> Int32).self),
            easyInit: try symbol("curl_easy_init", as: (@convention(c) () -> OpaquePointer?).self),
            easyReset: try symbol("curl_easy_reset", as: (@convention(c) (OpaquePointer?) -> Void).self),
            easyPerform: try symbol("curl_easy_perform", as: (@convention(c) (OpaquePointer?) -> Int32).self),
            easyStrError: try symbol("curl_easy_strerror", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self),
            slistAppendC: try symbol("curl_slist_append", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?).self),
            slistFreeAll: try symbol("curl_slist_free_all", as: (@convention(c) (OpaquePointer?) -> Void).self),
            setoptLong: try symbol("curl_easy_setopt", as: (@convention(c) (OpaquePointer?, Int32, Int) -> Int32).self),
            setoptPointer: try symbol("curl_easy_setopt", as: (@convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?) -> Int32).self),
            setoptCallback: try symbol("curl_easy_setopt", as: (@convention(c) (OpaquePointer?, Int32, Callback) -> Int32).self),
            getinfoLong: try symbol("curl_easy_getinfo", as: (@convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<Int>) -> Int32).self))
    }

    /// Appends a copy of `line` (libcurl copies it).
    func slistAppend(_ list: OpaquePointer?, _ line: String) -> OpaquePointer? {
        line.withCString { slistAppendC(list, $0) }
    }

    @discardableResult
    func setLong(_ handle: OpaquePointer, _ option: Int32, _ value: Int) -> Int32 { setoptLong(handle, option, value) }

    @discardableResult
    func setPointer(_ handle: OpaquePointer, _ option: Int32, _ value: UnsafeRawPointer?) -> Int32 {
        setoptPointer(handle, option, value)
    }

    @discardableResult
    func setCallback(_ handle: OpaquePointer, _ option: Int32, _ value: Callback) -> Int32 {
        setoptCallback(handle, option, value)
    }

    @discardableResult
    func getLong(_ handle: OpaquePointer, _ info: Int32, _ value: UnsafeMutablePointer<Int>) -> Int32 {
        getinfoLong(handle, info, value)
    }
}
