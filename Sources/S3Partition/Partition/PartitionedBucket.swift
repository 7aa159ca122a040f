import Foundation
import Logging
import WIFFoundation
import WIFHTTP

/// One user's private folder in a shared bucket: objects are addressed by name, and every name maps
/// to `<prefix><name>` under the user's ``PartitionPrefix``.
///
/// Names are checked before any request is sent (``PartitionPrefix/key(for:)``): a name cannot leave
/// the partition, and names S3 or file systems mishandle are refused with an error naming the rule.
/// Listings always carry the prefix, so the bucket root is never listed, and names come back without
/// it. With an ``S3Preflight``, every request is first evaluated against the role's policies, and a
/// denied one fails with PolicyEngine's explanation instead of being sent.
///
/// ```swift
/// let prefix = try PartitionPrefix.make(template: "facebook/{id}/", userId: "1001")
/// let files = try PartitionedBucket(client: s3, bucket: "wif-personal", prefix: prefix)
/// try await files.put("notes/today.txt", bytes: Array("hello".utf8))
/// for try await page in try files.list(prefix: "notes/") {
///     for object in page.objects { print(object.name, object.size) }   // "notes/today.txt 5"
/// }
/// try await files.get("notes/today.txt", toFile: "today.txt")
/// ```
public struct PartitionedBucket: Sendable {
    /// The client requests go through.
    public let client: S3Client
    /// The shared bucket.
    public let bucket: String
    /// The user's prefix in it.
    public let prefix: PartitionPrefix
    /// The local policy check run before each request, if any.
    public let preflight: S3Preflight?

    /// Creates a partition view of a bucket.
    /// - Parameters:
    ///   - client: The S3 client.
    ///   - bucket: The shared bucket.
    ///   - prefix: The user's prefix.
    ///   - preflight: A local policy check to run before each request.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidBucketName`` for a malformed bucket name.
    public init(client: S3Client, bucket: String, prefix: PartitionPrefix, preflight: S3Preflight? = nil) throws(S3Error) {
        try S3BucketName.validate(bucket)
        self.client = client
        self.bucket = bucket
        self.prefix = prefix
        self.preflight = preflight
    }

    /// Creates a partition view from a user id and a prefix template.
    /// - Parameters:
    ///   - client: The S3 client.
    ///   - bucket: The shared bucket.
    ///   - userId: The user's id.
    ///   - template: The prefix template, `{id}/` by default.
    ///   - preflight: A local policy check to run before each request.
    /// - Throws: ``S3Error`` for a malformed bucket name, user id or template.
    public init(
        client: S3Client, bucket: String, userId: String, template: String = PartitionPrefix.defaultTemplate,
        preflight: S3Preflight? = nil
    ) throws(S3Error) {
        try self.init(client: client, bucket: bucket, prefix: PartitionPrefix.make(template: template, userId: userId), preflight: preflight)
    }

    /// The key a name maps to, after checking the name.
    /// - Parameter name: The object's name.
    /// - Returns: `<prefix><name>`.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidObjectName`` naming the broken rule.
    public func key(for name: String) throws(S3Error) -> String {
        try self.prefix.key(for: name)
    }

    // MARK: Objects

    /// Stores bytes under a name.
    /// - Parameters:
    ///   - name: The object's name.
    ///   - bytes: The content.
    ///   - options: Content type, metadata and overwrite protection.
    ///   - logger: Where to log.
    /// - Returns: The new object's ETag and checksum.
    /// - Throws: ``S3Error``: ``S3Error/Code/invalidObjectName`` before sending,
    ///   ``S3Error/Code/preflightDenied``, S3's errors, …
    @discardableResult
    public func put(
        _ name: String, bytes: [UInt8], options: PutObjectOptions = PutObjectOptions(),
        logger: Logger = .noop
    ) async throws -> PutObjectResult {
        let key = try self.checkedKey(name, action: "PutObject")
        return try await self.client.putObject(bucket: self.bucket, key: key, bytes: bytes, options: options, logger: logger)
    }

    /// Uploads a file under a name (in parallel parts when it is large).
    /// - Parameters:
    ///   - name: The object's name.
    ///   - path: The file.
    ///   - options: Content type, metadata and overwrite protection.
    ///   - progress: Called with the bytes sent so far.
    ///   - logger: Where to log.
    /// - Returns: The new object's ETag, checksum, size and part count.
    /// - Throws: ``S3Error``: name and pre-flight errors before sending, ``S3Error/Code/fileError``,
    ///   S3's errors, …
    @discardableResult
    public func put(
        _ name: String, fromFile path: String, options: PutObjectOptions = PutObjectOptions(),
        progress: TransferProgressHandler? = nil,
        logger: Logger = .noop
    ) async throws -> PutObjectResult {
        let key = try self.checkedKey(name, action: "PutObject")
        return try await self.client.putObject(
            bucket: self.bucket, key: key, fromFile: path, options: options, progress: progress, logger: logger)
    }

    /// Uploads bytes of unknown length, read until `input` ends (such as standard input): one `PutObject`
    /// when they fit in one part, else a multipart upload of parts signed chunk by chunk.
    /// - Parameters:
    ///   - name: The object's name.
    ///   - input: Where the bytes come from; read to its end.
    ///   - options: Content type, metadata and overwrite protection.
    ///   - progress: Called with the bytes sent so far.
    ///   - logger: Where to log.
    /// - Returns: The new object's ETag, checksum, size and part count.
    /// - Throws: ``S3Error``: name and pre-flight errors before reading, ``S3Error/Code/fileError`` when
    ///   the input cannot be read, S3's errors, …
    @discardableResult
    public func put(
        _ name: String, from input: SequentialInput, options: PutObjectOptions = PutObjectOptions(),
        progress: TransferProgressHandler? = nil,
        logger: Logger = .noop
    ) async throws -> PutObjectResult {
        let key = try self.checkedKey(name, action: "PutObject")
        return try await self.client.putObject(
            bucket: self.bucket, key: key, from: input, options: options, progress: progress, logger: logger)
    }

    /// Downloads an object to a file, renamed into place only once complete and verified.
    /// - Parameters:
    ///   - name: The object's name.
    ///   - path: The destination file.
    ///   - progress: Called with the bytes received so far.
    ///   - logger: Where to log.
    /// - Returns: The object's metadata.
    /// - Throws: ``S3Error``: name and pre-flight errors before sending, ``S3Error/Code/noSuchKey``,
    ///   ``S3Error/Code/integrityCheckFailed``, ``S3Error/Code/fileError``, …
    @discardableResult
    public func get(
        _ name: String, toFile path: String, progress: TransferProgressHandler? = nil,
        logger: Logger = .noop
    ) async throws -> ObjectMetadata {
        let key = try self.checkedKey(name, action: "GetObject")
        return try await self.client.getObject(bucket: self.bucket, key: key, toFile: path, progress: progress, logger: logger)
    }

    /// Streams an object, in order, to an open file descriptor such as standard output; see
    /// ``S3Client/getObject(bucket:key:toDescriptor:progress:logger:)``.
    /// - Parameters:
    ///   - name: The object's name.
    ///   - descriptor: Where the bytes go; it stays open.
    ///   - progress: Called with the bytes written so far.
    ///   - logger: Where to log.
    /// - Returns: The object's metadata.
    /// - Throws: ``S3Error``: name and pre-flight errors before sending, ``S3Error/Code/noSuchKey``,
    ///   ``S3Error/Code/integrityCheckFailed``, ``S3Error/Code/fileError`` for an output that cannot be
    ///   written, …
    @discardableResult
    public func get(
        _ name: String, toDescriptor descriptor: Int32, progress: TransferProgressHandler? = nil,
        logger: Logger = .noop
    ) async throws -> ObjectMetadata {
        let key = try self.checkedKey(name, action: "GetObject")
        return try await self.client.getObject(bucket: self.bucket, key: key, toDescriptor: descriptor, progress: progress, logger: logger)
    }

    /// Reads a small object into memory.
    /// - Parameters:
    ///   - name: The object's name.
    ///   - maximumBytes: Larger objects are refused (64 MiB by default).
    ///   - logger: Where to log.
    /// - Returns: The metadata and bytes.
    /// - Throws: ``S3Error`` as for ``get(_:toFile:progress:logger:)``.
    public func get(
        _ name: String, maximumBytes: Int = 64 * 1024 * 1024,
        logger: Logger = .noop
    ) async throws -> ObjectData {
        let key = try self.checkedKey(name, action: "GetObject")
        return try await self.client.getObject(bucket: self.bucket, key: key, maximumBytes: maximumBytes, logger: logger)
    }

    /// Reads an object's metadata (`HeadObject`, which IAM authorises as `s3:GetObject`).
    /// - Parameters:
    ///   - name: The object's name.
    ///   - logger: Where to log.
    /// - Returns: The metadata.
    /// - Throws: ``S3Error``: ``S3Error/Code/noSuchKey`` when there is no such object, …
    public func head(
        _ name: String, logger: Logger = .noop
    ) async throws -> ObjectMetadata {
        let key = try self.checkedKey(name, action: "GetObject")
        return try await self.client.headObject(bucket: self.bucket, key: key, logger: logger)
    }

    /// Deletes an object; deleting a name that does not exist succeeds.
    /// - Parameters:
    ///   - name: The object's name.
    ///   - logger: Where to log.
    /// - Throws: ``S3Error``: name and pre-flight errors before sending, S3's errors.
    public func delete(
        _ name: String, logger: Logger = .noop
    ) async throws {
        let key = try self.checkedKey(name, action: "DeleteObject")
        try await self.client.deleteObject(bucket: self.bucket, key: key, logger: logger)
    }

    /// Deletes several objects with `DeleteObjects`; every name is checked before anything is sent.
    /// - Parameters:
    ///   - names: The objects' names.
    ///   - logger: Where to log.
    /// - Returns: The names deleted and the names S3 refused (as names, without the prefix).
    /// - Throws: ``S3Error`` for the first invalid or pre-flight-denied name, or when a whole request
    ///   fails.
    public func delete(
        _ names: [String], logger: Logger = .noop
    ) async throws -> DeleteObjectsResult {
        var keys: [String] = []
        keys.reserveCapacity(names.count)
        for name in names { keys.append(try self.checkedKey(name, action: "DeleteObject")) }
        let result = try await self.client.deleteObjects(bucket: self.bucket, keys: keys, logger: logger)
        return DeleteObjectsResult(
            deleted: result.deleted.map { self.prefix.name(forKey: $0) ?? $0 },
            failures: result.failures.map { .init(key: self.prefix.name(forKey: $0.key) ?? $0.key, code: $0.code, message: $0.message) })
    }

    // MARK: Listing

    /// Lists the partition's objects whose names start with `prefix`, page by page.
    ///
    /// The request's prefix is the partition prefix followed by `prefix`, so it is never empty.
    /// - Parameters:
    ///   - prefix: The start of the names to list; empty for the whole partition.
    ///   - delimiter: Group names by this (usually `/`) into ``PartitionListPage/folders``.
    ///   - pageSize: Keys per request, 1 to 1,000.
    ///   - logger: Where to log.
    /// - Returns: The pages, fetched as they are iterated; ``PartitionListing/objects`` flattens them.
    /// - Throws: ``S3Error`` with code ``S3Error/Code/invalidObjectName`` for a malformed prefix, or
    ///   ``S3Error/Code/preflightDenied``, before anything is sent.
    public func list(
        prefix: String = "", delimiter: String? = nil, pageSize: Int? = nil,
        logger: Logger = .noop
    ) throws(S3Error) -> PartitionListing {
        let keyPrefix = try self.prefix.listPrefix(for: prefix)
        if let delimiter, delimiter.isEmpty || delimiter.unicodeScalars.contains(where: NameRules.isControl) {
            throw .invalidArgument("the delimiter must be non-empty printable text", bucket: self.bucket)
        }
        try self.preflight?.checkList(bucket: self.bucket, prefix: keyPrefix, delimiter: delimiter)
        let request = ListObjectsV2Request(bucket: self.bucket, prefix: keyPrefix, delimiter: delimiter, maxKeys: pageSize)
        return PartitionListing(pages: self.client.listObjectsV2Pages(request, logger: logger), prefix: self.prefix)
    }

    /// Checks a name and the pre-flight policy, and returns the key.
    private func checkedKey(_ name: String, action: String) throws(S3Error) -> String {
        let key = try self.prefix.key(for: name)
        try self.preflight?.checkObject(action, bucket: self.bucket, key: key)
        return key
    }
}

/// An object in a partition listing.
public struct PartitionObject: Sendable, Hashable {
    /// The object's name (its key without the partition prefix).
    public var name: String
    /// The full key.
    public var key: String
    /// The size in bytes.
    public var size: Int64
    /// When the object was last written.
    public var lastModified: Date?
    /// The entity tag, without quotes.
    public var eTag: String?

    /// Creates a listed object.
    /// - Parameters:
    ///   - name: The name.
    ///   - key: The key.
    ///   - size: The size.
    ///   - lastModified: The last write.
    ///   - eTag: The entity tag.
    public init(name: String, key: String, size: Int64, lastModified: Date? = nil, eTag: String? = nil) {
        self.name = name
        self.key = key
        self.size = size
        self.lastModified = lastModified
        self.eTag = eTag
    }
}

/// One page of a partition listing.
public struct PartitionListPage: Sendable, Hashable {
    /// The objects, in name order.
    public var objects: [PartitionObject]
    /// The "folders" when a delimiter was given: name prefixes ending with the delimiter.
    public var folders: [String]

    /// Creates a page.
    /// - Parameters:
    ///   - objects: The objects.
    ///   - folders: The folders.
    public init(objects: [PartitionObject], folders: [String] = []) {
        self.objects = objects
        self.folders = folders
    }
}

/// The pages of a partition listing, with names relative to the partition.
public struct PartitionListing: AsyncSequence, Sendable {
    /// A page.
    public typealias Element = PartitionListPage

    let pages: ListObjectsV2Pages
    let prefix: PartitionPrefix

    /// Iterates the pages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: ListObjectsV2Pages.AsyncIterator
        let prefix: PartitionPrefix

        /// The next page, or `nil` after the last.
        /// - Throws: ``S3Error``; ``S3Error/Code/malformedResponse`` if S3 lists a key outside the
        ///   partition.
        public mutating func next() async throws -> PartitionListPage? {
            guard let page = try await self.pages.next() else { return nil }
            var objects: [PartitionObject] = []
            objects.reserveCapacity(page.objects.count)
            for object in page.objects {
                objects.append(
                    PartitionObject(
                        name: try self.name(object.key), key: object.key, size: object.size, lastModified: object.lastModified,
                        eTag: object.eTag))
            }
            var folders: [String] = []
            for folder in page.commonPrefixes { folders.append(try self.name(folder)) }
            return PartitionListPage(objects: objects, folders: folders)
        }

        private func name(_ key: String) throws(S3Error) -> String {
            guard let name = self.prefix.name(forKey: key) else {
                throw .malformedResponse("S3 listed '\(PrintableText.escaping(key))', which is outside the partition '\(self.prefix.value)'")
            }
            return name
        }
    }

    /// Starts the listing.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: self.pages.makeAsyncIterator(), prefix: self.prefix)
    }

    /// Every object of every page, in name order.
    public var objects: PartitionObjects { PartitionObjects(listing: self) }
}

/// The objects of a partition listing, across pages.
public struct PartitionObjects: AsyncSequence, Sendable {
    /// An object.
    public typealias Element = PartitionObject

    let listing: PartitionListing

    /// Iterates the objects.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: PageItems<PartitionListing.AsyncIterator, PartitionObject>

        /// The next object, or `nil` after the last.
        public mutating func next() async throws -> PartitionObject? {
            try await self.pages.next(\.objects)
        }
    }

    /// Starts the listing.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: PageItems(pages: self.listing.makeAsyncIterator()))
    }
}
