import Crypto
import Foundation
import Logging
import Synchronization
import WIFCredentials
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The buckets and objects of the local S3, kept in the data directory.
///
/// ```
/// buckets/<bucket>/bucket.json             creation date
/// buckets/<bucket>/<hh>/<sha256(key) hex>  body followed by its record (see ``StoredRecord``)
/// uploads/<upload id>/upload.json          a multipart upload's bucket, key and headers
/// uploads/<upload id>/<part number>        a part, in the same format as an object
/// parts/<upload id>/<part number>          the parts of an object completed from that upload, whose
///                                          own file then holds only its record (``CompletedParts``)
/// tmp/                                     files being written; emptied at start
/// ```
///
/// Objects uploaded with SSE-S3 or SSE-C are stored encrypted (``StoredEncryption``), with the key in
/// `keys/sse-s3.key` or the customer's, which is never stored.
///
/// Every write goes to `tmp/` first, is synced, and is renamed into place, so a crash leaves the old object
/// or the new one, never part of one. Bodies stream without any lock; only the rename and the in-memory
/// index update of each bucket happen under that bucket's lock, so uploads run in parallel.
///
/// Each bucket keeps a sorted in-memory index of its keys, sizes, entity tags and dates, loaded at start,
/// which answers listings without touching the disk.
final class ObjectStore: Sendable {
    /// Limits and behaviour of the store.
    struct Configuration: Sendable {
        /// The largest object a single put accepts (S3: 5 GiB).
        var maximumObjectSize: Int64 = 5 * 1024 * 1024 * 1024
        /// The largest part of a multipart upload (S3: 5 GiB).
        var maximumPartSize: Int64 = 5 * 1024 * 1024 * 1024
        /// The smallest part except the last (S3: 5 MiB).
        var minimumPartSize: Int64 = 5 * 1024 * 1024
        /// The size of the buffers a read produces.
        var readChunkSize: Int = 256 * 1024
        /// Whether files are synced to disk before they are renamed into place.
        var synchronizeWrites: Bool = true

        init() {}
    }

    /// The data directory.
    let data: DataDirectory
    /// The limits.
    let configuration: Configuration
    let timeSource: TimeSource
    let logger: Logger
    private let buckets: Mutex<[String: BucketState]>
    /// Uploads being completed or aborted, which other completions and aborts must not touch.
    let uploadsInFlight: Mutex<Set<String>>
    /// The data directory's key for objects encrypted at rest with SSE-S3 (`keys/sse-s3.key`).
    let encryptionKey: SymmetricKey
    /// The parts of objects completed from multipart uploads.
    let completedParts: CompletedParts

    /// Opens the store: empties `tmp/`, loads every bucket's index and creates the given buckets when missing.
    /// - Parameters:
    ///   - data: The data directory.
    ///   - buckets: Buckets that must exist.
    ///   - configuration: Limits.
    ///   - timeSource: The clock that dates objects.
    ///   - logger: Where problems with stored files are reported.
    /// - Throws: ``LocalStackError`` when the directory cannot be read or a bucket name is invalid.
    init(
        data: DataDirectory,
        buckets: [String] = [],
        configuration: Configuration = Configuration(),
        timeSource: TimeSource = .system,
        logger: Logger = Logger(label: "wif.local.storage", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(LocalStackError) {
        self.data = data
        self.configuration = configuration
        self.timeSource = timeSource
        self.logger = logger
        self.uploadsInFlight = Mutex([])
        self.encryptionKey = try data.secret(named: "sse-s3.key")
        self.completedParts = CompletedParts(root: data.parts)
        Self.emptyFolder(data.temporary)
        var loaded: [String: BucketState] = [:]
        var scan = CompletedParts.Scan()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: data.buckets)
        } catch {
            throw LocalStackError("cannot read the buckets folder \(data.buckets): \(FileFailure.reason(error, path: data.buckets))")
        }
        for name in names where BucketName.check(name) == nil {
            var isDirectory: ObjCBool = false
            let path = data.buckets + "/" + name
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            loaded[name] = try Self.loadBucket(name: name, path: path, now: timeSource.now(), scan: &scan, logger: logger)
        }
        self.completedParts.recover(scan, uploads: data.uploads, logger: logger)
        self.buckets = Mutex(loaded)
        for name in buckets {
            if let reason = BucketName.check(name) {
                throw LocalStackError("the configured bucket name '\(name)' is not valid: \(reason)")
            }
            do {
                try self.createBucketSync(name)
            } catch {
                if error.code != "BucketAlreadyOwnedByYou" {
                    throw LocalStackError("cannot create the bucket \(name): \(error.message)")
                }
            }
        }
    }

    /// Opens the store of a running stack, with the buckets of its configuration.
    convenience init(state: LocalState, configuration: Configuration = Configuration()) throws(LocalStackError) {
        try self.init(
            data: state.data,
            buckets: state.configuration.buckets.map(\.name),
            configuration: configuration,
            timeSource: state.timeSource,
            logger: state.logger
        )
    }

    // MARK: Buckets

    /// Creates a bucket.
    /// - Throws: `InvalidBucketName`, or `BucketAlreadyOwnedByYou` (409) when it exists; S3 in `us-east-1`
    ///   answers 200 to the latter, which is the caller's choice to make.
    func createBucket(_ name: String) async throws(AWSErrorResponse) {
        try self.createBucketSync(name)
    }

    private func createBucketSync(_ name: String) throws(AWSErrorResponse) {
        if let reason = BucketName.check(name) { throw ObjectStoreError.invalidBucketName(name, reason: reason) }
        let now = self.timeSource.now()
        try self.buckets.withLock { buckets throws(AWSErrorResponse) in
            guard buckets[name] == nil else { throw ObjectStoreError.bucketAlreadyOwnedByYou(name) }
            let staging = self.data.temporary + "/bucket-" + UUID().uuidString.lowercased()
            guard mkdir(staging, 0o700) == 0 else { throw ObjectStoreError.systemCall("mkdir", errno) }
            let created = StoredRecord.milliseconds(now)
            do {
                try self.data.writeAtomically(Data(#"{"creationDate":\#(created)}"#.utf8), to: staging + "/bucket.json")
            } catch {
                Self.removeTree(staging)
                throw ObjectStoreError.internalError("cannot write the bucket's record")
            }
            let path = self.data.buckets + "/" + name
            guard rename(staging, path) == 0 else {
                let error = errno
                Self.removeTree(staging)
                if error == EEXIST || error == ENOTEMPTY { throw ObjectStoreError.bucketAlreadyOwnedByYou(name) }
                throw ObjectStoreError.systemCall("rename", error)
            }
            buckets[name] = BucketState(name: name, path: path, creationDate: Date(timeIntervalSince1970: Double(created) / 1000), entries: [])
        }
    }

    /// Whether the bucket exists.
    func bucketExists(_ name: String) -> Bool {
        self.buckets.withLock { $0[name] != nil }
    }

    /// Every bucket, by name.
    func listBuckets() -> [BucketInfo] {
        self.buckets.withLock { buckets in
            buckets.values.map { BucketInfo(name: $0.name, creationDate: $0.creationDate) }
        }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// Deletes an empty bucket, with the multipart uploads still open in it.
    /// - Throws: `NoSuchBucket`; `BucketNotEmpty` (409) when it holds an object.
    func deleteBucket(_ name: String) async throws(AWSErrorResponse) {
        let graveyard = self.data.temporary + "/deleted-" + UUID().uuidString.lowercased()
        try self.buckets.withLock { buckets throws(AWSErrorResponse) in
            guard let state = buckets[name] else { throw ObjectStoreError.noSuchBucket(name) }
            try state.index.withLock { index throws(AWSErrorResponse) in
                guard index.entries.isEmpty else { throw ObjectStoreError.bucketNotEmpty(name) }
                guard rename(state.path, graveyard) == 0 else { throw ObjectStoreError.systemCall("rename", errno) }
                index.removed = true
            }
            buckets[name] = nil
        }
        Self.removeTree(graveyard)
        for upload in self.uploadRecords() where upload.bucket == name {
            self.discardUpload(upload.uploadId)
        }
    }

    /// The state of a bucket.
    /// - Throws: `NoSuchBucket`.
    func bucket(_ name: String) throws(AWSErrorResponse) -> BucketState {
        guard let state = self.buckets.withLock({ $0[name] }) else { throw ObjectStoreError.noSuchBucket(name) }
        return state
    }

    // MARK: Loading

    /// Loads a bucket's index, noting in `scan` the uploads whose parts its objects use and whether any
    /// stored object could not be read.
    private static func loadBucket(
        name: String, path: String, now: Date, scan: inout CompletedParts.Scan, logger: Logger
    ) throws(LocalStackError) -> BucketState {
        var creationDate = now
        if let data = FileManager.default.contents(atPath: path + "/bucket.json"),
            let milliseconds = (try? JSONParser.parse(Array(data)))?.member("creationDate")?.doubleValue {
            creationDate = Date(timeIntervalSince1970: milliseconds / 1000)
        }
        var entries: [IndexEntry] = []
        var folders: [String] = []
        do {
            folders = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            scan.complete = false
            logger.warning("skipping an unreadable bucket folder", metadata: ["wif.s3.bucket": "\(name)"])
        }
        for folder in folders where folder.utf8.count == 2 && folder.utf8.allSatisfy(\.isLowerHexDigit) {
            let folderPath = path + "/" + folder
            let files: [String]
            do {
                files = try FileManager.default.contentsOfDirectory(atPath: folderPath)
            } catch {
                scan.complete = false
                logger.warning("skipping an unreadable folder of stored objects", metadata: ["wif.s3.bucket": "\(name)", "wif.s3.folder": "\(folder)"])
                continue
            }
            for file in files {
                guard file.utf8.count == 64, file.utf8.allSatisfy(\.isLowerHexDigit) else { continue }
                do {
                    guard let stored = try StoredFile.load(path: folderPath + "/" + file), let key = stored.record.objectKey,
                        key.storageName.file == file
                    else {
                        scan.complete = false
                        logger.warning("skipping a stored object whose record does not match its name", metadata: ["wif.s3.bucket": "\(name)", "wif.s3.file": "\(file)"])
                        continue
                    }
                    if let parts = stored.record.bodyParts, let uploadId = stored.record.uploadId {
                        scan.referenced[uploadId] = parts.map(\.number)
                    }
                    entries.append(IndexEntry(key: key, record: stored.record))
                } catch {
                    scan.complete = false
                    logger.warning("skipping an unreadable stored object", metadata: ["wif.s3.bucket": "\(name)", "wif.s3.file": "\(file)", "wif.s3.error": "\(error.message)"])
                }
            }
        }
        entries.sort { $0.key < $1.key }
        return BucketState(name: name, path: path, creationDate: creationDate, entries: entries)
    }

    static func emptyFolder(_ path: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            Self.removeTree(path + "/" + name)
        }
    }

    static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A bucket: its folder and its sorted index, guarded by the bucket's lock.
final class BucketState: Sendable {
    let name: String
    let path: String
    let creationDate: Date
    let index: Mutex<BucketIndex>

    init(name: String, path: String, creationDate: Date, entries: [IndexEntry]) {
        self.name = name
        self.path = path
        self.creationDate = creationDate
        self.index = Mutex(BucketIndex(entries: entries))
    }

    /// Where an object with this key is stored.
    func location(of key: ObjectKey) -> (folder: String, file: String) {
        let name = key.storageName
        let folder = self.path + "/" + name.folder
        return (folder, folder + "/" + name.file)
    }
}

/// What a listing needs of an object, and the upload whose parts hold its body.
struct IndexEntry: Sendable {
    var key: ObjectKey
    var size: Int64
    var etag: String
    var lastModified: Date
    /// The upload whose parts, in `parts/`, hold the object's body; `nil` when its own file does.
    var partsUploadId: String? = nil
}

extension IndexEntry {
    init(key: ObjectKey, record: StoredRecord) {
        self.init(
            key: key, size: record.size, etag: record.etag, lastModified: record.lastModifiedDate,
            partsUploadId: record.bodyParts == nil ? nil : record.uploadId)
    }
}

/// A bucket's objects sorted by key bytes.
struct BucketIndex: Sendable {
    var entries: [IndexEntry]
    /// Set when the bucket was deleted, so a put racing the deletion fails instead of recreating files.
    var removed = false

    /// The position of the first entry whose key is not below `bytes`.
    func lowerBound(_ bytes: [UInt8]) -> Int {
        var low = 0
        var high = self.entries.count
        while low < high {
            let middle = (low + high) / 2
            if self.entries[middle].key.bytes.lexicographicallyPrecedes(bytes) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The position of the first entry whose key is above `bytes`.
    func upperBound(_ bytes: [UInt8]) -> Int {
        var position = self.lowerBound(bytes)
        if position < self.entries.count, self.entries[position].key.bytes == bytes { position += 1 }
        return position
    }

    mutating func insert(_ entry: IndexEntry) {
        let position = self.lowerBound(entry.key.bytes)
        if position < self.entries.count, self.entries[position].key == entry.key {
            self.entries[position] = entry
        } else {
            self.entries.insert(entry, at: position)
        }
    }

    /// The entry of a key, if the bucket holds it.
    func entry(_ key: ObjectKey) -> IndexEntry? {
        let position = self.lowerBound(key.bytes)
        guard position < self.entries.count, self.entries[position].key == key else { return nil }
        return self.entries[position]
    }

    @discardableResult
    mutating func remove(_ key: ObjectKey) -> Bool {
        let position = self.lowerBound(key.bytes)
        guard position < self.entries.count, self.entries[position].key == key else { return false }
        self.entries.remove(at: position)
        return true
    }
}

/// S3's bucket naming rules.
enum BucketName {
    /// Why the name is not valid, or `nil` when it is.
    static func check(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return "a bucket name must be between 3 and 63 characters long" }
        for byte in bytes {
            let allowed = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            guard allowed else { return "a bucket name can consist only of lowercase letters, numbers, dots (.) and hyphens (-)" }
        }
        guard let first = bytes.first, let last = bytes.last, first.isLowerAlphanumeric, last.isLowerAlphanumeric else {
            return "a bucket name must begin and end with a letter or number"
        }
        if name.contains("..") { return "a bucket name must not contain two adjacent periods" }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }) {
            return "a bucket name must not be formatted as an IP address"
        }
        for prefix in ["xn--", "sthree-", "amzn-s3-demo-"] where name.hasPrefix(prefix) {
            return "a bucket name must not start with '\(prefix)'"
        }
        for suffix in ["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"] where name.hasSuffix(suffix) {
            return "a bucket name must not end with '\(suffix)'"
        }
        return nil
    }
}

extension UInt8 {
    var isLowerHexDigit: Bool {
        (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9")) || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
    }

    fileprivate var isLowerAlphanumeric: Bool {
        (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9")) || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z"))
    }
}
