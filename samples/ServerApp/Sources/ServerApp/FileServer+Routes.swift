import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import S3Partition
import WIFFoundation

extension FileServer {
    /// Adds `GET /`, `GET /**`, `PUT /**` and `DELETE /**` to a route group.
    func addRoutes(to files: RouterGroup<AppContext>) {
        files.get { request, context in try await self.list(request, context: context) }
        files.get("**") { request, context in try await self.download(request, context: context) }
        files.put("**") { request, context in try await self.upload(request, context: context) }
        files.delete("**") { request, context in try await self.delete(request, context: context) }
    }

    /// `GET /files[?prefix=P]`: the caller's files whose names start with `P`.
    func list(_ request: Request, context: AppContext) async throws -> FileListing {
        let session = try await self.session(for: request, context: context)
        let prefix = request.uri.queryParameters["prefix"].map(String.init) ?? ""
        return try await Self.mappingStorageErrors(name: nil) {
            var files: [FileEntry] = []
            for try await object in try session.folder.list(prefix: prefix, logger: context.logger).objects {
                files.append(FileEntry(name: object.name, size: object.size, lastModified: object.lastModified))
            }
            return FileListing(files: files)
        }
    }

    /// `PUT /files/<name>`: stores the body. It is spooled to disk as it arrives (so memory does not
    /// grow with its size), then uploaded, in parallel parts when large.
    func upload(_ request: Request, context: AppContext) async throws -> Response {
        let session = try await self.session(for: request, context: context)
        let name = try Self.fileName(of: request)
        // Refuse a bad name before reading the body.
        try Self.mappingStorageErrors(name: name) { _ = try session.folder.key(for: name) }
        let limit = self.configuration.maximumUploadBytes
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit {
            throw FileServerError.tooLarge(limit: limit)
        }

        let spooled = self.spoolPath()
        defer { try? FileManager.default.removeItem(atPath: spooled) }
        try await self.fileIO.writeFile(contents: SizeLimitedBody(base: request.body, limit: limit), path: spooled, context: context)
        let options = PutObjectOptions(contentType: request.headers[.contentType])
        let result = try await Self.mappingStorageErrors(name: name) {
            try await session.folder.put(name, fromFile: spooled, options: options, logger: context.logger)
        }
        var response = try StoredFile(name: name, size: result.size, eTag: result.eTag).response(from: request, context: context)
        response.status = .created
        return response
    }

    /// `GET /files/<name>`: the file. It is downloaded (and verified) to the spool folder first, so the
    /// status is known before anything is sent, then streamed from there.
    func download(_ request: Request, context: AppContext) async throws -> Response {
        let session = try await self.session(for: request, context: context)
        let name = try Self.fileName(of: request)
        let spooled = self.spoolPath()
        let metadata: ObjectMetadata
        let body: ResponseBody
        do {
            metadata = try await self.fetch(name, from: session.folder, to: spooled, logger: context.logger)
            body = try await self.fileIO.loadFile(path: spooled, context: context)
        } catch {
            try? FileManager.default.removeItem(atPath: spooled)
            throw error
        }
        var headers: HTTPFields = [.contentType: metadata.contentType ?? "application/octet-stream"]
        if let eTag = metadata.eTag { headers[.eTag] = "\"\(eTag)\"" }
        // The spooled copy is removed once the body has been sent, or sending has failed.
        let streamed = ResponseBody(contentLength: body.contentLength) { writer in
            defer { try? FileManager.default.removeItem(atPath: spooled) }
            try await body.write(writer)
        }
        return Response(status: .ok, headers: headers, body: streamed)
    }

    /// `DELETE /files/<name>`: removes the file; removing a missing file succeeds, as in S3.
    func delete(_ request: Request, context: AppContext) async throws -> Response {
        let session = try await self.session(for: request, context: context)
        let name = try Self.fileName(of: request)
        try await Self.mappingStorageErrors(name: name) {
            try await session.folder.delete(name, logger: context.logger)
        }
        return Response(status: .noContent)
    }

    // MARK: Helpers

    /// The caller's session, from the request's bearer token.
    func session(for request: Request, context: AppContext) async throws -> UserSession {
        let credential = try BearerCredential(headers: request.headers)
        do {
            return try await self.sessions.session(for: credential, logger: context.logger)
        } catch let error as FileServerError {
            context.logger.info(
                "refused a request's identity", metadata: ["server_app.error": "\(error.code)", "server_app.status": "\(error.status.code)"])
            throw error
        }
    }

    /// Downloads a file, telling a missing file from a refused one.
    ///
    /// S3 answers `AccessDenied` rather than `NoSuchKey` for a missing key when the caller may not list
    /// it; the folder's policy does allow listing the folder, so a listing settles which it is.
    func fetch(_ name: String, from folder: PartitionedBucket, to path: String, logger: Logger) async throws -> ObjectMetadata {
        do {
            return try await folder.get(name, toFile: path, logger: logger)
        } catch let error as S3Error where error.code == .accessDenied {
            let first: PartitionObject?
            do {
                first = try await folder.list(prefix: name, pageSize: 1, logger: logger).objects.first { _ in true }
            } catch {
                throw FileServerError.answer(for: error, name: name)
            }
            // Listing is in name order, so the name itself comes first when it exists.
            if first?.name != name { throw FileServerError.noSuchFile(name) }
            throw FileServerError.storage(error, name: name)
        } catch let error as S3Error {
            throw FileServerError.storage(error, name: name)
        }
    }

    /// The file name of `/files/<name>`, percent-decoded. Taken from the raw path so that empty and
    /// dot segments reach the naming rules instead of being normalised away.
    static func fileName(of request: Request) throws(FileServerError) -> String {
        let path = request.uri.path
        let marker = "/files/"
        guard let range = path.range(of: marker), range.lowerBound == path.startIndex else {
            throw .invalidRequest("file requests are /files/<name>")
        }
        let raw = String(path[range.upperBound...])
        guard let name = raw.removingPercentEncoding else {
            throw .invalidRequest("the file name is not valid percent-encoded UTF-8")
        }
        return name
    }

    /// A new path in the spool folder.
    func spoolPath() -> String {
        (self.spoolDirectory as NSString).appendingPathComponent("\(UUID().uuidString).spool")
    }

    /// Runs an S3 request, turning its failure into the answer it deserves.
    static func mappingStorageErrors<T>(name: String?, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw FileServerError.answer(for: error, name: name)
        }
    }

    /// Runs a check, turning its failure into the answer it deserves.
    static func mappingStorageErrors<T>(name: String?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw FileServerError.answer(for: error, name: name)
        }
    }
}
