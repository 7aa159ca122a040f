import Crypto
import Foundation
import NIOCore
import NIOPosix
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ObjectStore {
    /// The highest part number.
    static let maximumPartNumber = 10_000

    /// Starts a multipart upload.
    /// - Returns: The upload, with its id.
    /// - Throws: `NoSuchBucket`, `KeyTooLongError`, `InvalidArgument`, `MetadataTooLarge`.
    func createMultipartUpload(
        bucket: String, key: String, attributes: ObjectAttributes = ObjectAttributes(),
        checksum: (algorithm: S3Checksum.Algorithm, type: StoredChecksum.Kind)? = nil,
        encryption: EncryptionRequest? = nil
    ) async throws(AWSErrorResponse) -> MultipartUploadInfo {
        if encryption?.mode == .customer, checksum?.type == .fullObject {
            // The object's checksum is computed over the parts' plaintext at completion, which has no key.
            throw S3Errors.notImplemented("A full-object checksum on a multipart upload encrypted with a customer's key (SSE-C)")
        }
        _ = try self.bucket(bucket)
        let objectKey = try ObjectKey(key)
        try Self.checkMetadata(attributes)
        let uploadId = SecureRandom.bytes(24).hexString
        let record = UploadRecord(
            uploadId: uploadId,
            bucket: bucket,
            key: Data(objectKey.bytes).base64EncodedString(),
            initiated: StoredRecord.milliseconds(self.timeSource.now()),
            attributes: attributes,
            checksumAlgorithmName: checksum?.algorithm.name,
            checksumType: checksum?.type,
            encryptionMode: encryption?.mode,
            encryptionKeyMD5: encryption?.keyMD5
        )
        let staging = self.data.temporary + "/upload-" + uploadId
        guard mkdir(staging, 0o700) == 0 else { throw ObjectStoreError.systemCall("mkdir", errno) }
        do {
            try self.data.writeAtomically(try JSONEncoder().encode(record), to: staging + "/upload.json")
        } catch {
            Self.removeTree(staging)
            throw ObjectStoreError.internalError("cannot write the upload's record")
        }
        guard rename(staging, self.uploadPath(uploadId)) == 0 else {
            let error = errno
            Self.removeTree(staging)
            throw ObjectStoreError.systemCall("rename", error)
        }
        return record.info
    }

    /// Stores a part of a multipart upload, replacing any part with the same number.
    /// - Parameters:
    ///   - partNumber: 1…10000.
    ///   - body: The part's bytes.
    ///   - checks: Digests and length to verify.
    /// - Returns: The part, whose entity tag is the quoted hexadecimal MD5 of its bytes.
    /// - Throws: `NoSuchBucket`, `NoSuchUpload`, `InvalidArgument` (part number), the body errors of
    ///   ``putObject(bucket:key:body:attributes:checks:)``.
    @discardableResult
    func uploadPart<Body: AsyncSequence>(
        bucket: String,
        key: String,
        uploadId: String,
        partNumber: Int,
        body: Body,
        checks: PayloadChecks = PayloadChecks(),
        customerKey: EncryptionRequest? = nil
    ) async throws(AWSErrorResponse) -> PartInfo where Body.Element == ByteBuffer {
        guard (1...Self.maximumPartNumber).contains(partNumber) else { throw ObjectStoreError.invalidPartNumber(partNumber) }
        let upload = try self.upload(bucket: bucket, key: key, uploadId: uploadId)
        var checks = checks
        if let algorithm = upload.checksumAlgorithm {
            // Every part of an upload with a checksum gets one of the upload's algorithm.
            if let sent = checks.checksumAlgorithm, sent != algorithm {
                throw S3Errors.invalidRequest(
                    "Checksum Type mismatch occurred, expected checksum Type: \(algorithm.name.lowercased()), "
                        + "actual checksum Type: \(sent.name.lowercased())")
            }
            checks.checksumAlgorithm = algorithm
        }
        let encryption = try self.partEncryption(upload, customerKey: customerKey)
        let iv = ObjectCipher.makeIV()
        let received = try await self.receive(
            body, checks: checks, maximum: self.configuration.maximumPartSize,
            cipher: encryption.map { ObjectCipher(key: $0.key, iv: iv) })
        let file = received.file
        let record = StoredRecord(
            key: "",
            size: file.written,
            etag: "\"\(received.md5.hexString)\"",
            lastModified: StoredRecord.milliseconds(self.timeSource.now()),
            sha256: received.sha256?.hexString,
            md5: received.md5.hexString,
            checksum: received.checksum.map { StoredChecksum(algorithm: $0.algorithm, value: $0.value, type: .fullObject) },
            encryption: encryption.map { Self.encryption($0, length: file.written, iv: iv) }
        )
        try await file.finish(record: record, synchronize: self.configuration.synchronizeWrites)
        guard rename(file.path, self.uploadPath(uploadId) + "/" + Self.partName(partNumber)) == 0 else {
            let error = errno
            if error == ENOENT { throw ObjectStoreError.noSuchUpload(uploadId) }
            throw ObjectStoreError.systemCall("rename", error)
        }
        file.release()
        return PartInfo(
            partNumber: partNumber, etag: record.etag, size: record.size, lastModified: record.lastModifiedDate, checksum: record.checksum)
    }

    /// Lists the parts of an upload by ascending number.
    /// - Parameters:
    ///   - partNumberMarker: Only parts above this number.
    ///   - maxParts: At most this many (capped at 1000).
    /// - Throws: `NoSuchBucket`, `NoSuchUpload`, `InvalidArgument` for a negative marker or count.
    func listParts(bucket: String, key: String, uploadId: String, partNumberMarker: Int = 0, maxParts: Int = 1000) async throws(AWSErrorResponse) -> ListPartsResult {
        guard partNumberMarker >= 0 else { throw ObjectStoreError.invalidArgument("part-number-marker must be a non-negative integer", name: "part-number-marker", value: String(partNumberMarker)) }
        guard maxParts >= 0 else { throw ObjectStoreError.invalidArgument("max-parts must be a non-negative integer", name: "max-parts", value: String(maxParts)) }
        let upload = try self.upload(bucket: bucket, key: key, uploadId: uploadId)
        let all = try self.parts(of: uploadId).filter { $0.key > partNumberMarker }.sorted { $0.key < $1.key }
        let limit = min(maxParts, 1000)
        let page = all.prefix(limit).map { number, file in
            PartInfo(
                partNumber: number, etag: file.record.etag, size: file.bodyLength, lastModified: file.record.lastModifiedDate,
                checksum: file.record.checksum)
        }
        let truncated = all.count > page.count
        return ListPartsResult(upload: upload.info, parts: page, isTruncated: truncated, nextPartNumberMarker: truncated ? page.last?.partNumber : nil)
    }

    /// The uploads open in a bucket, by key then initiation date.
    /// - Throws: `NoSuchBucket`.
    func listMultipartUploads(bucket: String) async throws(AWSErrorResponse) -> [MultipartUploadInfo] {
        _ = try self.bucket(bucket)
        return self.uploadRecords().filter { $0.bucket == bucket }.map(\.info).sorted {
            $0.key == $1.key ? $0.initiated < $1.initiated : $0.key.utf8.lexicographicallyPrecedes($1.key.utf8)
        }
    }

    /// Completes an upload: checks the named parts, moves them to `parts/` as the object's body (see
    /// ``CompletedParts``) and renames a file holding the object's record into place.
    /// - Parameters:
    ///   - parts: The parts, by ascending number, with the entity tags `UploadPart` returned.
    ///   - expectedSize: The object's size as the client expects it (`x-amz-mp-object-size`), if it said.
    /// - Returns: The object, whose entity tag is the MD5 of the parts' binary MD5s followed by `-<count>`.
    /// - Throws: `NoSuchBucket`, `NoSuchUpload`, `MalformedXML` (no parts), `InvalidPartOrder` (numbers not
    ///   ascending, or with a per-part checksum not 1, 2, 3… without a gap),
    ///   `InvalidPart` (missing part or entity tag mismatch), `InvalidRequest` (the parts do not make
    ///   `expectedSize` bytes, from `x-amz-mp-object-size`), `EntityTooSmall` (a part other than the last
    ///   under the minimum part size), `OperationAborted` while another completion of the upload runs.
    @discardableResult
    func completeMultipartUpload(
        bucket: String, key: String, uploadId: String, parts: [CompletedPart], expectedSize: Int64? = nil
    ) async throws(AWSErrorResponse) -> ObjectInfo {
        let state = try self.bucket(bucket)
        // Claimed first: while a completion runs, the upload's folder may be in `parts/`, and another
        // completion or an abort must hear that one is in progress, not that the upload is gone.
        try self.claim(uploadId)
        defer { self.uploadsInFlight.withLock { _ = $0.remove(uploadId) } }
        let upload = try self.upload(bucket: bucket, key: key, uploadId: uploadId)
        guard let objectKey = upload.objectKey else { throw ObjectStoreError.noSuchUpload(uploadId) }
        guard !parts.isEmpty else { throw ObjectStoreError.malformedXML("CompleteMultipartUpload names no part") }
        for (previous, next) in zip(parts, parts.dropFirst()) where next.partNumber <= previous.partNumber {
            throw ObjectStoreError.invalidPartOrder(uploadId: uploadId)
        }
        // Parts that each carry a CRC32, CRC32C, SHA-1 or SHA-256 checksum must be numbered 1, 2, 3… with
        // no gap, as S3 requires of them (CRC64NVME covers the whole object, and may skip numbers).
        if let algorithm = upload.checksumAlgorithm, algorithm != .crc64nvme {
            for (offset, part) in parts.enumerated() where part.partNumber != offset + 1 {
                throw ObjectStoreError.invalidPartOrder(uploadId: uploadId)
            }
        }

        let stored = try self.parts(of: uploadId)
        var files: [StoredFile] = []
        var digests: [UInt8] = []
        var total: Int64 = 0
        for (offset, part) in parts.enumerated() {
            guard let file = stored[part.partNumber], Self.sameETag(file.record.etag, part.etag), let md5 = file.record.md5, let binary = Self.bytes(hex: md5) else {
                throw ObjectStoreError.invalidPart(part.partNumber, etag: part.etag, uploadId: uploadId)
            }
            if offset < parts.count - 1, file.bodyLength < self.configuration.minimumPartSize {
                throw ObjectStoreError.entityTooSmall(partNumber: part.partNumber, size: file.bodyLength, minimum: self.configuration.minimumPartSize)
            }
            if let algorithm = upload.checksumAlgorithm, let listed = part.checksums[algorithm],
                listed != file.record.checksum?.value
            {
                throw ObjectStoreError.invalidPart(part.partNumber, etag: part.etag, uploadId: uploadId)
            }
            files.append(file)
            digests += binary
            total += file.bodyLength
        }
        guard total <= self.configuration.maximumObjectSize else {
            throw ObjectStoreError.entityTooLarge(proposed: total, maximum: self.configuration.maximumObjectSize)
        }
        if let expectedSize, expectedSize != total {
            throw ObjectStoreError.objectSizeMismatch(expected: expectedSize, actual: total)
        }

        let checksum = try await self.multipartChecksum(upload, parts: files)
        var encryption: StoredEncryption?
        if let mode = upload.encryptionMode {
            // The object keeps its parts' segments: its bytes are the parts' bytes as they were stored.
            var segments: [StoredEncryption.Segment] = []
            for file in files {
                guard let part = file.record.encryption else { throw ObjectStoreError.internalError("a part of an encrypted upload is not encrypted") }
                segments += part.segments
            }
            encryption = StoredEncryption(mode: mode, keyMD5: upload.encryptionKeyMD5, segments: segments)
        }
        var record = StoredRecord(
            key: Data(objectKey.bytes).base64EncodedString(),
            size: total,
            etag: "\"\(Insecure.MD5.hash(data: digests).hexString)-\(parts.count)\"",
            lastModified: StoredRecord.milliseconds(self.timeSource.now()),
            attributes: upload.attributes,
            partCount: parts.count,
            uploadId: uploadId,
            checksum: checksum,
            encryption: encryption,
            bodyParts: zip(parts, files).map { StoredBodyPart(number: $0.partNumber, length: $1.bodyLength) }
        )
        // The parts' files become the object's body where they are: the upload's folder moves to `parts/`
        // and the object's own file holds only its record. Should a part have been uploaded again since
        // it was checked, the checked files are copied into one instead.
        let output = try TemporaryFile(in: self.data.temporary)
        if try await self.moveParts(of: uploadId, checked: zip(parts, files).map { ($0.partNumber, $1) }) {
            do {
                try await output.finish(record: record, synchronize: self.configuration.synchronizeWrites)
                try await self.commit(output, key: objectKey, record: record, in: state)
            } catch {
                // A bucket deleted meanwhile took its uploads with it.
                if error.code == "NoSuchBucket" { Self.removeTree(self.completedParts.folder(uploadId)) } else { self.restoreParts(of: uploadId) }
                throw error
            }
            self.completedParts.trim(uploadId, keeping: parts.map(\.partNumber))
        } else {
            // The body is one file: only the lengths of the parts it was joined from are kept.
            record.partLengths = record.bodyParts?.map(\.length)
            record.bodyParts = nil
            try await self.concatenate(files, into: output)
            try await output.finish(record: record, synchronize: self.configuration.synchronizeWrites)
            try await self.commit(output, key: objectKey, record: record, in: state)
            self.discardUpload(uploadId)
        }
        return Self.info(key: key, record: record)
    }

    /// The object an upload made, when the upload was completed already and that object is still the
    /// key's current one with as many parts as `parts` names; `nil` otherwise (the upload is still open,
    /// or was never completed here).
    /// - Throws: `NoSuchBucket`; `InvalidRequest` when the object is not `expectedSize` bytes.
    func completedUpload(
        bucket: String, key: String, uploadId: String, parts: [CompletedPart], expectedSize: Int64? = nil
    ) async throws(AWSErrorResponse) -> ObjectInfo? {
        _ = try self.bucket(bucket)
        if (try? self.upload(bucket: bucket, key: key, uploadId: uploadId)) != nil { return nil }
        guard let (file, info) = try? self.open(bucket: bucket, key: key), file.record.uploadId == uploadId,
            file.record.partCount == parts.count
        else { return nil }
        if let expectedSize, expectedSize != info.size {
            throw ObjectStoreError.objectSizeMismatch(expected: expectedSize, actual: info.size)
        }
        return info
    }

    /// Aborts an upload and deletes its parts.
    /// - Throws: `NoSuchBucket`, `NoSuchUpload`, `OperationAborted` while it is being completed.
    func abortMultipartUpload(bucket: String, key: String, uploadId: String) async throws(AWSErrorResponse) {
        _ = try self.bucket(bucket)
        try self.claim(uploadId)
        defer { self.uploadsInFlight.withLock { _ = $0.remove(uploadId) } }
        _ = try self.upload(bucket: bucket, key: key, uploadId: uploadId)
        guard self.discardUpload(uploadId) else { throw ObjectStoreError.noSuchUpload(uploadId) }
    }

    // MARK: Upload files

    func uploadPath(_ uploadId: String) -> String {
        self.data.uploads + "/" + uploadId
    }

    static func partName(_ partNumber: Int) -> String {
        let digits = String(partNumber)
        return String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// Reads an upload's record, checking that it belongs to the bucket and key.
    func upload(bucket: String, key: String, uploadId: String) throws(AWSErrorResponse) -> UploadRecord {
        _ = try self.bucket(bucket)
        let objectKey = try ObjectKey(key)
        guard uploadId.utf8.count == 48, uploadId.utf8.allSatisfy(\.isLowerHexDigit),
            let data = FileManager.default.contents(atPath: self.uploadPath(uploadId) + "/upload.json"),
            let record = try? JSONDecoder().decode(UploadRecord.self, from: data),
            record.bucket == bucket, record.objectKey == objectKey
        else { throw ObjectStoreError.noSuchUpload(uploadId) }
        return record
    }

    /// Every upload on disk.
    func uploadRecords() -> [UploadRecord] {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: self.data.uploads)) ?? []
        return ids.compactMap { id in
            guard let data = FileManager.default.contents(atPath: self.uploadPath(id) + "/upload.json") else { return nil }
            return try? JSONDecoder().decode(UploadRecord.self, from: data)
        }
    }

    /// The stored parts of an upload by number.
    private func parts(of uploadId: String) throws(AWSErrorResponse) -> [Int: StoredFile] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: self.uploadPath(uploadId))
        } catch {
            throw ObjectStoreError.noSuchUpload(uploadId)
        }
        var parts: [Int: StoredFile] = [:]
        for name in names where name.utf8.count == 5 {
            guard let number = Int(name), (1...Self.maximumPartNumber).contains(number) else { continue }
            if let file = try StoredFile.load(path: self.uploadPath(uploadId) + "/" + name) { parts[number] = file }
        }
        return parts
    }

    /// Marks an upload as being completed or aborted.
    private func claim(_ uploadId: String) throws(AWSErrorResponse) {
        let claimed = self.uploadsInFlight.withLock { $0.insert(uploadId).inserted }
        guard claimed else {
            throw AWSErrorResponse(
                "OperationAborted",
                "A conflicting conditional operation is currently in progress against this resource. Please try again.",
                status: .conflict,
                details: [("UploadId", uploadId)]
            )
        }
    }

    /// Moves an upload's folder out of `uploads/` in one step, then deletes it.
    @discardableResult
    func discardUpload(_ uploadId: String) -> Bool {
        let graveyard = self.data.temporary + "/aborted-" + UUID().uuidString.lowercased()
        guard rename(self.uploadPath(uploadId), graveyard) == 0 else { return false }
        Self.removeTree(graveyard)
        return true
    }

    private static func sameETag(_ stored: String, _ given: String) -> Bool {
        func bare(_ etag: String) -> String {
            var text = Substring(etag.trimming(.whitespaces))
            if text.hasPrefix("\"") { text = text.dropFirst() }
            if text.hasSuffix("\"") { text = text.dropLast() }
            return text.lowercased()
        }
        return bare(stored) == bare(given)
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0, digits.allSatisfy(\.isLowerHexDigit) else { return nil }
        func value(_ digit: UInt8) -> UInt8 { digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10 }
        return stride(from: 0, to: digits.count, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
    }
}
