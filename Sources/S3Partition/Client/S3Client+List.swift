import Foundation
import Logging
import WIFFoundation
import WIFHTTP

/// One object in a listing.
public struct S3ObjectSummary: Sendable, Hashable {
    /// The object key.
    public var key: String
    /// The size in bytes.
    public var size: Int64
    /// When the object was last written.
    public var lastModified: Date?
    /// The entity tag, without quotes.
    public var eTag: String?
    /// The storage class, such as `STANDARD`.
    public var storageClass: String?

    /// Creates a summary.
    /// - Parameters:
    ///   - key: The key.
    ///   - size: The size in bytes.
    ///   - lastModified: The last write.
    ///   - eTag: The entity tag.
    ///   - storageClass: The storage class.
    public init(key: String, size: Int64, lastModified: Date? = nil, eTag: String? = nil, storageClass: String? = nil) {
        self.key = key
        self.size = size
        self.lastModified = lastModified
        self.eTag = eTag
        self.storageClass = storageClass
    }
}

/// One page of a `ListObjectsV2` answer.
public struct ListObjectsV2Page: Sendable, Hashable {
    /// The objects on this page, in key order.
    public var objects: [S3ObjectSummary]
    /// The common prefixes ("folders") on this page when a delimiter was given, each ending with it.
    public var commonPrefixes: [String]
    /// Whether more pages follow.
    public var isTruncated: Bool
    /// The token that asks for the next page.
    public var nextContinuationToken: String?

    /// Creates a page.
    /// - Parameters:
    ///   - objects: The objects.
    ///   - commonPrefixes: The common prefixes.
    ///   - isTruncated: Whether more pages follow.
    ///   - nextContinuationToken: The token for the next page.
    public init(objects: [S3ObjectSummary], commonPrefixes: [String] = [], isTruncated: Bool = false, nextContinuationToken: String? = nil) {
        self.objects = objects
        self.commonPrefixes = commonPrefixes
        self.isTruncated = isTruncated
        self.nextContinuationToken = nextContinuationToken
    }
}

/// What to list: `ListObjectsV2` parameters.
public struct ListObjectsV2Request: Sendable, Hashable {
    /// The bucket.
    public var bucket: String
    /// Only keys starting with this.
    public var prefix: String?
    /// Group keys by this character (usually `/`) after the prefix into common prefixes.
    public var delimiter: String?
    /// At most this many keys per page (S3 caps it at 1,000).
    public var maxKeys: Int?
    /// Start after this key.
    public var startAfter: String?

    /// Creates a request.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - prefix: The key prefix.
    ///   - delimiter: The delimiter.
    ///   - maxKeys: Keys per page, 1 to 1,000.
    ///   - startAfter: The key to start after.
    public init(bucket: String, prefix: String? = nil, delimiter: String? = nil, maxKeys: Int? = nil, startAfter: String? = nil) {
        self.bucket = bucket
        self.prefix = prefix
        self.delimiter = delimiter
        self.maxKeys = maxKeys
        self.startAfter = startAfter
    }
}

extension S3Client {
    /// Lists one page of objects with `ListObjectsV2`.
    ///
    /// Keys are requested URL-encoded (`encoding-type=url`), so keys with characters XML cannot carry
    /// come back intact.
    /// - Parameters:
    ///   - request: The bucket, prefix, delimiter and page size.
    ///   - continuationToken: The previous page's ``ListObjectsV2Page/nextContinuationToken``.
    ///   - logger: Where to log.
    /// - Returns: The page.
    /// - Throws: ``S3Error``: ``S3Error/Code/noSuchBucket``, ``S3Error/Code/accessDenied``,
    ///   ``S3Error/Code/malformedResponse`` for an unreadable answer, …
    public func listObjectsV2(
        _ request: ListObjectsV2Request, continuationToken: String? = nil, logger: Logger = .noop
    ) async throws -> ListObjectsV2Page {
        try S3BucketName.validate(request.bucket)
        if let maxKeys = request.maxKeys, !(1...1000).contains(maxKeys) {
            throw S3Error.invalidArgument("maxKeys is \(maxKeys); it must be 1 to 1000", bucket: request.bucket)
        }
        var s3Request = S3Request(operation: "ListObjectsV2", method: .GET, bucket: request.bucket)
        s3Request.query = [("list-type", "2"), ("encoding-type", "url")]
        if let continuationToken { s3Request.query.append(("continuation-token", continuationToken)) }
        if let delimiter = request.delimiter { s3Request.query.append(("delimiter", delimiter)) }
        if let maxKeys = request.maxKeys { s3Request.query.append(("max-keys", String(maxKeys))) }
        if let prefix = request.prefix { s3Request.query.append(("prefix", prefix)) }
        if let startAfter = request.startAfter { s3Request.query.append(("start-after", startAfter)) }
        let (response, body) = try await self.performCollecting(s3Request, logger: logger)
        return try Self.decodeListPage(body, status: response.status, requestId: response.header("x-amz-request-id"), bucket: request.bucket)
    }

    /// Every page of a listing, fetched as the sequence is iterated.
    /// - Parameters:
    ///   - request: The bucket, prefix, delimiter and page size.
    ///   - logger: Where to log.
    /// - Returns: An asynchronous sequence of pages; ``ListObjectsV2Pages/objects`` flattens it.
    public func listObjectsV2Pages(_ request: ListObjectsV2Request, logger: Logger = .noop) -> ListObjectsV2Pages {
        ListObjectsV2Pages(client: self, request: request, logger: logger)
    }

    /// Reads a `ListBucketResult` document.
    static func decodeListPage(_ body: [UInt8], status: Int, requestId: String?, bucket: String) throws(S3Error) -> ListObjectsV2Page {
        let root: XMLTreeElement
        do {
            root = try XMLReader.parse(body)
        } catch {
            throw .malformedResponse("the ListObjectsV2 answer is not XML: \(error.reason)", status: status, requestId: requestId, bucket: bucket)
        }
        guard root.name == "ListBucketResult" else {
            throw .malformedResponse(
                "the ListObjectsV2 answer is <\(root.name)>, not <ListBucketResult>", status: status, requestId: requestId, bucket: bucket)
        }
        let urlEncoded = root.text("EncodingType")?.lowercased() == "url"
        func decoded(_ text: String) throws(S3Error) -> String {
            guard urlEncoded else { return text }
            guard let value = Self.urlDecoded(text) else {
                throw .malformedResponse("the listing holds a badly encoded key '\(text.prefix(80))'", status: status, requestId: requestId, bucket: bucket)
            }
            return value
        }
        var objects: [S3ObjectSummary] = []
        var prefixes: [String] = []
        objects.reserveCapacity(root.children.count)
        for child in root.children {
            switch child.name {
            case "Contents":
                guard let key = child.text("Key") else {
                    throw .malformedResponse("a listed object has no <Key>", status: status, requestId: requestId, bucket: bucket)
                }
                var size: Int64 = 0
                if let text = child.trimmedText("Size") {
                    guard let value = Int64(text), value >= 0 else {
                        throw .malformedResponse(
                            "the listed object '\(key.prefix(80))' has the size '\(text.prefix(40))', not a whole number of bytes",
                            status: status, requestId: requestId, bucket: bucket)
                    }
                    size = value
                }
                objects.append(
                    S3ObjectSummary(
                        key: try decoded(key), size: size,
                        lastModified: child.text("LastModified").flatMap { AWSDate.parseISO8601($0, requiringTime: true).map(AWSDate.date(milliseconds:)) },
                        eTag: child.text("ETag").map(ObjectMetadata.unquoted), storageClass: child.text("StorageClass")))
            case "CommonPrefixes":
                if let prefix = child.text("Prefix") { prefixes.append(try decoded(prefix)) }
            default:
                continue
            }
        }
        let truncated = root.text("IsTruncated")?.lowercased() == "true"
        let token = root.text("NextContinuationToken").flatMap { $0.isEmpty ? nil : $0 }
        if truncated && token == nil {
            throw .malformedResponse(
                "the ListObjectsV2 answer says more pages follow but gives no continuation token", status: status,
                requestId: requestId, bucket: bucket)
        }
        return ListObjectsV2Page(objects: objects, commonPrefixes: prefixes, isTruncated: truncated, nextContinuationToken: token)
    }

    /// Decodes `%XX` escapes (and `+` as space, as S3's URL encoding of listings writes it).
    static func urlDecoded(_ text: String) -> String? {
        // Most keys have nothing to decode, and a String is already valid UTF-8.
        var contiguous = text
        let escaped = contiguous.withUTF8 { $0.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") } }
        guard escaped else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(PercentEncoding.hexValue), let low = iterator.next().flatMap(PercentEncoding.hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// The pages of a listing, each fetched when the previous one has been consumed.
public struct ListObjectsV2Pages: AsyncSequence, Sendable {
    /// A page.
    public typealias Element = ListObjectsV2Page

    let client: S3Client
    let request: ListObjectsV2Request
    let logger: Logger

    /// Iterates the pages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: S3Client
        let request: ListObjectsV2Request
        let logger: Logger
        var token: String?
        var finished = false
        var seenTokens: Set<String> = []

        /// The next page, or `nil` after the last.
        public mutating func next() async throws -> ListObjectsV2Page? {
            guard !self.finished else { return nil }
            let page = try await self.client.listObjectsV2(self.request, continuationToken: self.token, logger: self.logger)
            if page.isTruncated, let next = page.nextContinuationToken {
                // A server that hands out the same token twice would make the listing endless.
                guard self.seenTokens.insert(next).inserted else {
                    throw S3Error.malformedResponse("the listing repeated a continuation token", bucket: self.request.bucket)
                }
                self.token = next
            } else {
                self.finished = true
            }
            return page
        }
    }

    /// Starts the listing.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(client: self.client, request: self.request, logger: self.logger)
    }

    /// The objects of every page, in key order.
    public var objects: ListedObjects { ListedObjects(pages: self) }
}

/// The objects of a listing, across pages.
public struct ListedObjects: AsyncSequence, Sendable {
    /// An object.
    public typealias Element = S3ObjectSummary

    let pages: ListObjectsV2Pages

    /// Iterates the objects.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: PageItems<ListObjectsV2Pages.AsyncIterator, S3ObjectSummary>

        /// The next object, or `nil` after the last.
        public mutating func next() async throws -> S3ObjectSummary? {
            try await self.pages.next(\.objects)
        }
    }

    /// Starts the listing.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: PageItems(pages: self.pages.makeAsyncIterator()))
    }
}

/// The items of a paged listing one at a time: the iterator behind ``ListedObjects`` and
/// ``PartitionObjects``.
struct PageItems<Pages: AsyncIteratorProtocol, Item> {
    var pages: Pages
    var buffer: [Item] = []
    var index = 0

    init(pages: Pages) {
        self.pages = pages
    }

    /// The next item, taking pages as they are needed; `nil` after the last.
    mutating func next(_ items: (Pages.Element) -> [Item]) async throws -> Item? {
        while self.index == self.buffer.count {
            guard let page = try await self.pages.next() else { return nil }
            self.buffer = items(page)
            self.index = 0
        }
        defer { self.index += 1 }
        return self.buffer[self.index]
    }
}
