import AsyncHTTPClient
import Logging
import NIOCore
import WIFFoundation
import WIFHTTP

extension S3Client {
    /// Streams an object, in order, to an open file descriptor: standard output, a pipe or a socket,
    /// where what has been written cannot be taken back.
    ///
    /// One request reads the object from its start. If the connection breaks mid-body, the rest is
    /// fetched from where it stopped as a range conditional on the first answer's ETag, so no byte is
    /// written twice and an object replaced meanwhile fails the download instead of mixing versions;
    /// an answer without an ETag is not resumed.
    /// The length is always checked and, unless ``Transfer/verifiesDownloads`` is off, the MD5 against a
    /// single-part ETag and the stored full-object checksum, over every byte written. Those checks can
    /// only end the stream: when one fails the bytes are already written, and the error says so.
    /// - Parameters:
    ///   - bucket: The bucket.
    ///   - key: The object key.
    ///   - descriptor: Where the bytes go; it stays open.
    ///   - progress: Called with the bytes written so far.
    ///   - logger: Where to log.
    /// - Returns: The object's metadata.
    /// - Throws: ``S3Error``: ``S3Error/Code/noSuchKey``, ``S3Error/Code/accessDenied`` before anything
    ///   is written; ``S3Error/Code/integrityCheckFailed``, ``S3Error/Code/preconditionFailed`` when the
    ///   object changed between a break and its resumption, ``S3Error/Code/network`` when the
    ///   connection keeps breaking, ``S3Error/Code/fileError`` when the descriptor cannot be written (a
    ///   closed pipe); `CancellationError`.
    @discardableResult
    public func getObject(
        bucket: String, key: String, toDescriptor descriptor: Int32, progress: TransferProgressHandler? = nil,
        logger: Logger = .noop
    ) async throws -> ObjectMetadata {
        try Self.validate(bucket: bucket, key: key)
        let transfer = self.configuration.transfer
        let request = self.wholeObjectRequest(bucket: bucket, key: key)
        let (metadata, firstVerifier, eTag, firstBody) = try await self.perform(request, logger: logger) { response in
            let length = try Self.contentLength(response, operation: "GetObject", bucket: bucket, key: key)
            return (
                ObjectMetadata(headers: response.headers, contentLength: length),
                BodyVerifier(headers: response.headers, expectedLength: length, verifies: transfer.verifiesDownloads),
                response.header("etag"), response.body
            )
        }
        let length = metadata.contentLength
        let tracker = ProgressTracker(totalBytes: length, handler: progress)
        var verifier = firstVerifier
        var body = firstBody
        var position: Int64 = 0
        var resumptions = 0
        while true {
            do {
                for try await buffer in body {
                    guard position + Int64(buffer.readableBytes) <= length else {
                        throw S3Error.integrity("S3 sent more than the \(length) bytes it announced", bucket: bucket, key: key)
                    }
                    verifier.update(buffer)
                    if let failure = buffer.withUnsafeReadableBytes({ DescriptorWriter.writeAll($0, to: descriptor) }) {
                        throw S3Error.fileError("cannot write the download to the output: \(systemErrorText(failure))")
                    }
                    position += Int64(buffer.readableBytes)
                    tracker.add(Int64(buffer.readableBytes))
                }
                if position == length { break }
                throw S3Error.network("the connection closed after \(position) of \(length) bytes", bucket: bucket, key: key)
            } catch let error as S3Error where error.code != .network {
                throw error
            } catch {
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                // Every byte arrived before the connection broke: nothing is left to fetch.
                if position == length { break }
                // Resumptions count against the same number of attempts as any request's retries. Without
                // an ETag the rest could come from a replaced object of the same size, so there is none.
                resumptions += 1
                guard eTag != nil, resumptions < self.configuration.retry.maxAttempts else {
                    if let error = error as? S3Error { throw error }
                    throw S3Error.network(
                        "the connection broke after \(position) of \(length) bytes had been written: \(TransportFailure.reason(error))", bucket: bucket, key: key)
                }
                logger.debug(
                    "the download's connection broke; fetching the rest",
                    metadata: ["wif.s3.key": "\(key)", "wif.s3.offset": "\(position)", "wif.s3.error": "\(error)"])
                body = try await self.remainder(of: bucket, key: key, from: position, length: length, eTag: eTag, logger: logger)
            }
        }
        try verifier.verify(bucket: bucket, key: key)
        return metadata
    }

    /// The body of a ranged request for the bytes of an object from `offset` to its end.
    private func remainder(
        of bucket: String, key: String, from offset: Int64, length: Int64, eTag: String?, logger: Logger
    ) async throws -> HTTPClientResponse.Body {
        let request = Self.rangeRequest(bucket: bucket, key: key, offset: offset, length: length - offset, eTag: eTag)
        return try await self.perform(request, logger: logger) { response in
            _ = try Self.checkRange(response, offset: offset, length: length - offset, objectSize: length, bucket: bucket, key: key)
            return response.body
        }
    }
}
