import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PolicyEngine
import WIFCredentials
import WIFAPIServer

/// The stack's S3 endpoint: addressing, SigV4 authentication, IAM authorization with PolicyEngine, and the
/// bucket, object, listing and multipart operations over the ``ObjectStore``.
///
/// Every request is authenticated; a role session is then authorized as IAM would (role policies ∩ session
/// policy, plus the bucket policy), before anything about the object is looked up, so a denied caller
/// learns nothing about what exists. Bodies stream between the socket and the disk in both directions.
struct S3Service: Sendable {
    let state: LocalState
    let authenticator: RequestAuthenticator
    let store: ObjectStore
    let authorizer: S3Authorizer
    let hostRule: S3HostRule
    let owner: S3XML.Owner

    /// The largest XML body accepted (`DeleteObjects` with 1000 long keys, `CompleteMultipartUpload` with
    /// 10000 parts).
    static let maximumXMLBodySize = 4 * 1024 * 1024
    /// The most keys a `DeleteObjects` request may name.
    static let maximumDeleteKeys = 1000

    /// Creates the service and opens its store.
    /// - Throws: ``LocalStackError`` when the data directory cannot be used or a bucket policy is invalid.
    init(state: LocalState, authenticator: RequestAuthenticator) throws(LocalStackError) {
        try self.init(state: state, authenticator: authenticator, store: ObjectStore(state: state))
    }

    /// Creates the service over a given store.
    init(state: LocalState, authenticator: RequestAuthenticator, store: ObjectStore, hostRule: S3HostRule = S3HostRule())
        throws(LocalStackError)
    {
        self.state = state
        self.authenticator = authenticator
        self.store = store
        self.authorizer = try S3Authorizer(configuration: state.configuration)
        self.hostRule = hostRule
        let account = state.configuration.accountId
        self.owner = S3XML.Owner(id: SigV4Bytes.hexString(SHA256.hash(data: Array(account.utf8))), displayName: account)
    }

    /// Answers an S3 request; errors are S3 `Error` documents (status and headers only for `HEAD`).
    /// - Parameters:
    ///   - request: The request; its body is streamed, not collected.
    ///   - sourceIp: The client's address, for `aws:SourceIp` in policies; `nil` when unknown.
    func respond(to request: Request, sourceIp: String? = nil) async -> Response {
        let requestId = RequestID.make()
        var response: Response
        do {
            response = try await self.handle(request, requestId: requestId, sourceIp: sourceIp)
        } catch {
            response = error.s3Response(requestId: requestId, head: request.method == .head)
        }
        response.headers[S3Headers.requestId] = requestId
        response.headers[S3Headers.id2] = requestId
        return response
    }

    /// Everything known about a request once it is authenticated and routed.
    struct Call: Sendable {
        var request: Request
        var requestId: String
        var operation: S3Operation
        var address: S3Address
        var query: S3Query
        var authenticated: AuthenticatedRequest
        /// The session's request context; `nil` for the administrator.
        var context: PolicyEngine.RequestContext?

        var bucket: String { self.address.bucket ?? "" }
        var key: String { self.address.key ?? "" }
        var headers: HTTPFields { self.request.headers }
        var caller: Caller { self.authenticated.caller }
    }

    private func handle(_ request: Request, requestId: String, sourceIp: String?) async throws(AWSErrorResponse) -> Response {
        if request.method == .post, let type = request.headers.value(of: .contentType), type.lowercased().hasPrefix("multipart/form-data") {
            // A browser form upload signs a policy inside the form, not the request, so it would otherwise be
            // refused as unsigned.
            throw S3Errors.notImplemented("Browser-based uploads (POST with a form and a signed policy)")
        }
        let authenticated = try self.authenticator.authenticate(request, service: "s3")
        let address = try S3Address(host: request.head.authority, rawPath: request.uri.path, rule: self.hostRule)
        let query = try S3Query(raw: request.uri.query)
        let operation = try S3Operation.route(method: request.method, address: address, query: query, headers: request.headers)
        var context: PolicyEngine.RequestContext?
        if case .session(let session) = authenticated.caller {
            let facts = S3Authorizer.RequestFacts(
                contentSHA256: request.headers[S3Headers.contentSHA256] ?? (authenticated.presigned ? "UNSIGNED-PAYLOAD" : nil),
                presigned: authenticated.presigned, sourceIp: sourceIp, time: self.state.timeSource.now())
            guard let sessionContext = self.authorizer.context(for: session, facts: facts) else {
                throw AWSErrorResponse("AccessDenied", "Access Denied", status: .forbidden)
            }
            context = sessionContext
        }
        let call = Call(
            request: request, requestId: requestId, operation: operation, address: address, query: query,
            authenticated: authenticated, context: context)
        try Self.refuseUnsupportedHeaders(call)
        switch operation {
        case .listBuckets: return try await self.listBuckets(call)
        case .createBucket: return try await self.createBucket(call)
        case .headBucket: return try await self.headBucket(call)
        case .deleteBucket: return try await self.deleteBucket(call)
        case .getBucketLocation: return try await self.getBucketLocation(call)
        case .listObjectsV2: return try await self.listObjects(call, version: 2)
        case .listObjects: return try await self.listObjects(call, version: 1)
        case .listMultipartUploads: return try await self.listMultipartUploads(call)
        case .deleteObjects: return try await self.deleteObjects(call)
        case .putObject: return try await self.putObject(call)
        case .copyObject: return try await self.copyObject(call)
        case .getObject: return try await self.getObject(call, head: false)
        case .headObject: return try await self.getObject(call, head: true)
        case .deleteObject: return try await self.deleteObject(call)
        case .createMultipartUpload: return try await self.createMultipartUpload(call)
        case .uploadPart: return try await self.uploadPart(call)
        case .uploadPartCopy: return try await self.uploadPartCopy(call)
        case .completeMultipartUpload: return try await self.completeMultipartUpload(call)
        case .abortMultipartUpload: return try await self.abortMultipartUpload(call)
        case .listParts: return try await self.listParts(call)
        }
    }

    // MARK: Authorization

    /// Authorizes the call's own operation on its own resource.
    /// - Throws: `AccessDenied` (403) with AWS's message.
    func authorize(_ call: Call) throws(AWSErrorResponse) {
        let resource = S3Operation.resourceARN(bucket: call.address.bucket, key: call.address.key, scope: call.operation.scope)
        try self.authorize(call, action: call.operation.action, resource: resource)
    }

    /// Authorizes an action on a resource for the call's caller.
    func authorize(_ call: Call, action: String, resource: String, keys: [String: ContextValue] = [:])
        throws(AWSErrorResponse)
    {
        guard let context = call.context else { return }
        let request = AuthorizationRequest(action: action, resource: resource, context: keys.isEmpty ? context : context.merging(keys))
        try self.enforce(call, request)
    }

    /// Evaluates a prepared request and throws `AccessDenied` when it is not allowed.
    func enforce(_ call: Call, _ request: AuthorizationRequest) throws(AWSErrorResponse) {
        if case .denied(let message) = self.authorizer.decide(request, bucket: call.address.bucket, caller: call.caller) {
            throw AWSErrorResponse("AccessDenied", message, status: .forbidden)
        }
    }

    /// Whether an action would be allowed, without throwing.
    func isAllowed(_ call: Call, _ request: AuthorizationRequest) -> Bool {
        self.authorizer.decide(request, bucket: call.address.bucket, caller: call.caller).isAllowed
    }

    /// Throws `NoSuchBucket` when the call's bucket does not exist. Bucket names are global and public in
    /// S3, so their existence is checked before authorization, as S3 does.
    func requireBucket(_ call: Call) throws(AWSErrorResponse) {
        guard self.store.bucketExists(call.bucket) else { throw ObjectStoreError.noSuchBucket(call.bucket) }
    }
}

/// Header names used by the S3 endpoint.
enum S3Headers {
    static let requestId = HTTPField.Name("x-amz-request-id")!
    static let id2 = HTTPField.Name("x-amz-id-2")!
    static let contentSHA256 = HTTPField.Name("x-amz-content-sha256")!
    static let contentMD5 = HTTPField.Name("Content-MD5")!
    static let decodedContentLength = HTTPField.Name("x-amz-decoded-content-length")!
    static let trailer = HTTPField.Name("x-amz-trailer")!
    static let checksumMode = HTTPField.Name("x-amz-checksum-mode")!
    static let partsCount = HTTPField.Name("x-amz-mp-parts-count")!
    static let objectSize = HTTPField.Name("x-amz-mp-object-size")!
    static let serverSideEncryption = HTTPField.Name("x-amz-server-side-encryption")!
    static let checksumType = HTTPField.Name("x-amz-checksum-type")!
    static let checksumAlgorithm = HTTPField.Name("x-amz-checksum-algorithm")!
    static let copySource = HTTPField.Name("x-amz-copy-source")!
    static let copySourceRange = HTTPField.Name("x-amz-copy-source-range")!
    static let metadataDirective = HTTPField.Name("x-amz-metadata-directive")!
    static let bucketRegion = HTTPField.Name("x-amz-bucket-region")!
    static let acceptRanges = HTTPField.Name("Accept-Ranges")!
    static let date = HTTPField.Name("x-amz-date")!
    static let location = HTTPField.Name("Location")!
}
