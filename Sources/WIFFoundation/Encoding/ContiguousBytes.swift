/// Runs `body` over a collection's bytes in contiguous memory: its own storage when it has one, else a
/// copy.
///
/// The foundation's readers and encoders take any collection of bytes, and a generic function called
/// from another module runs unspecialised, one witness call per byte; handing the work to code over
/// an `UnsafeBufferPointer` keeps that to one call.
package func withContiguousBytes<Bytes: Collection, Result>(
    _ bytes: Bytes, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
) rethrows -> Result where Bytes.Element == UInt8 {
    if let result = try bytes.withContiguousStorageIfAvailable(body) { return result }
    return try Array(bytes).withUnsafeBufferPointer(body)
}
