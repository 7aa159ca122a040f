import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file operation of Foundation's failed, in words a person reads. On Linux Foundation's own
/// description is often `The operation could not be completed. (NSCocoaErrorDomain error 256.)`; the
/// system's reason is kept beneath it, and what is at the path says the rest.
package enum FileFailure {
    /// The reason `error` gives for `path`: the system's reason when the error carries one, else what is
    /// at the path (nothing, a folder), else Foundation's description.
    /// - Parameters:
    ///   - error: What Foundation threw.
    ///   - path: The file or folder the operation was about.
    /// - Returns: A short reason, such as `it is a folder` or `Permission denied`.
    package static func reason(_ error: any Error, path: String) -> String {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        if let code = Self.systemCode(error) {
            if code == EISDIR || (exists && isFolder.boolValue && code != EACCES) { return "it is a folder" }
            return String(cString: strerror(code))
        }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "there is no such file"
            case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
            case .fileWriteFileExists: return exists && isFolder.boolValue ? "a folder is in the way" : "a file is in the way"
            case .fileWriteOutOfSpace: return "no space left on the device"
            case .fileWriteVolumeReadOnly: return "the file system is read-only"
            default: break
            }
        }
        if exists && isFolder.boolValue { return "it is a folder" }
        return error.localizedDescription
    }

    /// The `errno` beneath a Foundation error, when it has one.
    private static func systemCode(_ error: any Error) -> Int32? {
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain { return Int32(bridged.code) }
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return nil
    }
}
