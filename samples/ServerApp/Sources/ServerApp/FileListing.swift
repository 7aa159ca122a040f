import Foundation
import Hummingbird

/// The answer to `GET /files`: the caller's files, by name.
public struct FileListing: ResponseCodable, Sendable, Hashable {
    /// The files, in name order.
    public var files: [FileEntry]

    /// Creates a listing.
    /// - Parameter files: The files.
    public init(files: [FileEntry]) {
        self.files = files
    }
}

/// A file in the caller's folder.
public struct FileEntry: Codable, Sendable, Hashable {
    /// The name, relative to the caller's folder, such as `notes/today.txt`.
    public var name: String
    /// The size in bytes.
    public var size: Int64
    /// When it was last written, if S3 said.
    public var lastModified: Date?

    /// Creates an entry.
    /// - Parameters:
    ///   - name: The name.
    ///   - size: The size in bytes.
    ///   - lastModified: When it was last written.
    public init(name: String, size: Int64, lastModified: Date? = nil) {
        self.name = name
        self.size = size
        self.lastModified = lastModified
    }
}

/// The answer to `PUT /files/<name>`: what was stored.
public struct StoredFile: ResponseCodable, Sendable, Hashable {
    /// The name, relative to the caller's folder.
    public var name: String
    /// The size in bytes.
    public var size: Int64
    /// The object's ETag.
    public var eTag: String?

    /// Creates the answer.
    /// - Parameters:
    ///   - name: The name.
    ///   - size: The size in bytes.
    ///   - eTag: The object's ETag.
    public init(name: String, size: Int64, eTag: String?) {
        self.name = name
        self.size = size
        self.eTag = eTag
    }
}
