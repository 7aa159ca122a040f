import AccessRules
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import WIFAPIServer
import WIFFoundation

/// The APIs of the configuration, at `/apis/<name>/<Model>[/<id>]`: a REST API over each schema's
/// models that authenticates every request in the API's modes and enforces its `@auth` rules.
///
/// | request | operation | answer |
/// |---|---|---|
/// | `POST …/<Model>` | create | 201 and the record; an empty owner field is filled with the caller |
/// | `GET …/<Model>/<id>` | get | 200 and the record, without the fields the caller may not read |
/// | `GET …/<Model>` | list | 200 and `{"items": […]}`: only the records the caller may read |
/// | `PUT …/<Model>/<id>` | update | 200 and the merged record |
/// | `DELETE …/<Model>/<id>` | delete | 200 and the deleted record |
///
/// Missing or bad credentials answer 401 `UnauthorizedException`; a rule's refusal 403
/// `ForbiddenException` (`ConditionalCheckFailedException` when the record's owner or groups refuse a
/// write), with the rule; an unknown API, model or record 404.
struct APIService: Sendable {
    /// The path prefix of every API.
    static let prefix = "/apis/"
    /// The largest request body.
    static let maximumBodySize = 1 << 20

    struct ServedAPI: Sendable {
        let definition: APIDefinition
        let evaluator: RuleEvaluator
        let authenticator: APIAuthenticator
        let store: RecordStore
    }

    let apis: [String: ServedAPI]
    let configuration: LocalConfiguration
    let logger: Logger

    init(state: LocalState, authenticator: RequestAuthenticator, authorizer: S3Authorizer, jwks: [UInt8]) throws(LocalStackError) {
        let configuration = state.configuration
        var apis: [String: ServedAPI] = [:]
        let verifier = LocalAPISignatureVerifier(
            authenticator: authenticator, authorizer: authorizer, timeSource: state.timeSource, accountId: configuration.accountId)
        for definition in configuration.apis {
            let ruleSet: RuleSet
            do {
                ruleSet = try RuleSet(schema: definition.schema, semantics: definition.semantics)
            } catch {
                throw LocalStackError("the schema of API \(definition.name) is invalid: \(error)")
            }
            func authority(_ kind: APITokenAuthority.Kind, profile name: String) -> APITokenAuthority? {
                guard let profile = configuration.provider(named: name), let issuer = profile.issuer ?? (profile.kind == .oidc ? configuration.issuer : nil)
                else { return nil }
                return APITokenAuthority(
                    kind: kind, issuer: issuer, clientIds: Set(profile.clientIds), leeway: .seconds(Int64(configuration.tokenLeeway)),
                    timeSource: state.timeSource, loadJWKS: { jwks })
            }
            var lambda: APILambdaAuthorizer?
            if let authorizer = definition.lambdaAuthorizer {
                let runner = LambdaAuthorizerRunner(
                    authorizer: authorizer, apiId: definition.name, accountId: configuration.accountId, stage: definition.stage,
                    timeSource: state.timeSource, logger: state.logger)
                lambda = { request in await runner.decide(request) }
            }
            let apiAuthenticator = APIAuthenticator(
                modes: definition.authorizationModes, apiKeys: definition.apiKeys,
                userPool: authority(.userPool, profile: definition.userPoolProfile), oidc: authority(.oidc, profile: definition.oidcProfile),
                signatureVerifier: verifier, lambda: lambda,
                resource: definition.resource(region: configuration.region, accountId: configuration.accountId),
                timeSource: state.timeSource)
            apis[definition.name] = ServedAPI(
                definition: definition, evaluator: RuleEvaluator(ruleSet: ruleSet, customAuthorizer: Self.customRule), authenticator: apiAuthenticator,
                store: RecordStore(data: state.data, api: definition.name))
        }
        self.apis = apis
        self.configuration = configuration
        self.logger = state.logger
    }

    /// `{ allow: custom }`: the API's Lambda authorizer has already accepted the caller's token, as in
    /// AppSync, where the function's answer is the rule's.
    static let customRule: CustomAuthorizer = { request in request.caller.authMode == .function }

    /// The rules of an API, as the service parsed them.
    func ruleSet(ofAPI name: String) -> RuleSet? {
        self.apis[name]?.evaluator.ruleSet
    }

    /// Answers a request under ``prefix``.
    func respond(to request: Request) async -> Response {
        let path = request.uri.path
        // Split over UTF-8: a path is bytes, and this runs for every call.
        let parts = path.utf8.dropFirst(Self.prefix.utf8.count).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { String(Substring($0)) }
        guard let name = parts.first, let api = self.apis[name] else {
            return Self.error(.notFound, "NotFoundException", "no API is named '\(parts.first ?? "")'; this stack serves \(self.apis.keys.sorted().joined(separator: ", "))")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumBodySize)
        } catch {
            return Self.error(.contentTooLarge, "BadRequestException", "the request body is larger than \(Self.maximumBodySize) bytes or could not be read")
        }
        let rest = path.utf8.dropFirst(Self.prefix.utf8.count + name.utf8.count)
        let relative = rest.isEmpty ? "/" : String(Substring(rest))
        let caller: APICaller
        do {
            caller = try await api.authenticator.authenticate(request, body: body, path: relative, logger: self.logger)
        } catch {
            return error.response
        }
        let resource = Array(parts.dropFirst())
        guard let model = resource.first, !model.isEmpty, resource.count <= 2 else {
            return Self.error(.notFound, "NotFoundException", "the path must be /apis/\(name)/<Model> or /apis/\(name)/<Model>/<id>")
        }
        guard api.evaluator.ruleSet.models[model] != nil else {
            let known = api.evaluator.ruleSet.models.keys.sorted().joined(separator: ", ")
            return Self.error(.notFound, "NotFoundException", "API \(name) has no model '\(model)'; it has \(known)")
        }
        let id = resource.count == 2 ? resource[1] : nil
        if let id, !RecordStore.isValidId(id) {
            return Self.error(.badRequest, "BadRequestException", "the record id must be 1 to 128 letters, digits, '-', '_' or '.'")
        }
        let call = Call(api: api, model: model, id: id, caller: caller, body: body, method: request.method, isOpen: api.definition.isOpen)
        switch (request.method, id) {
        case (.post, nil): return call.create()
        case (.get, nil): return call.list()
        case (.get, .some): return call.get()
        case (.put, .some), (.patch, .some): return call.update()
        case (.delete, .some): return call.delete()
        default:
            return Self.error(.methodNotAllowed, "MethodNotAllowedException", "\(request.method.rawValue) is not an operation on \(path)")
        }
    }

    /// One call on a model.
    struct Call {
        let api: ServedAPI
        let model: String
        let id: String?
        let caller: APICaller
        let body: ByteBuffer
        let method: HTTPRequest.Method
        /// Whether the API takes no credentials at all (`NONE` only), so there are no rules to apply.
        let isOpen: Bool

        var ruleCaller: AccessRules.Caller? { self.caller.caller }
        /// Whether the call writes (a refused write of a stored record is a failed condition, as in AppSync).
        var isWrite: Bool { self.method != .get && self.method != .head }

        func create() -> Response {
            guard var record = self.bodyRecord() else { return Self.badBody() }
            if let refusal = self.deniedWrite(record) { return refusal }
            for (field, value) in self.api.evaluator.ownerFields(model: self.model, caller: self.ruleCaller, record: record.fields) {
                record.set(field, string: value)
            }
            let id: String
            switch record.fields["id"] {
            case .string(let given)?:
                guard RecordStore.isValidId(given) else {
                    return APIService.error(.badRequest, "BadRequestException", "the record's id must be 1 to 128 letters, digits, '-', '_' or '.'")
                }
                id = given
            case nil, .null?:
                id = UUID().uuidString.lowercased()
                record.set("id", string: id)
            default:
                return APIService.error(.badRequest, "BadRequestException", "the record's id must be a string")
            }
            let decision = self.decide(.create, after: record.fields)
            if let refusal = self.refusal(decision) { return refusal }
            if self.api.store.read(model: self.model, id: id) != nil {
                return APIService.error(
                    .conflict, "ConditionalCheckFailedException", "a \(self.model) with id '\(id)' exists already")
            }
            return self.save(record, id: id, status: .created)
        }

        func get() -> Response {
            guard let id = self.id, var record = self.api.store.read(model: self.model, id: id) else { return self.notFound() }
            let decision = self.decide(.get, before: record.fields)
            if let refusal = self.refusal(decision) { return refusal }
            record.remove(Set(decision.redactions.map(\.field)).union(self.deniedFields(of: record)))
            return APIService.json(.ok, record.json)
        }

        func list() -> Response {
            var items: [String] = []
            for var record in self.api.store.list(model: self.model) {
                let decision = self.decide(.list, before: record.fields)
                guard decision.isAllowed else { continue }
                record.remove(Set(decision.redactions.map(\.field)).union(self.deniedFields(of: record)))
                items.append(record.json)
            }
            // A caller no rule lets list anything is refused outright, as AppSync refuses the query.
            if items.isEmpty {
                let probe = self.decide(.list)
                if Self.refusesCaller(probe), let refusal = self.refusal(probe) { return refusal }
            }
            return APIService.json(.ok, #"{"items":[\#(items.joined(separator: ","))]}"#)
        }

        func update() -> Response {
            guard let id = self.id, var stored = self.api.store.read(model: self.model, id: id) else { return self.notFound() }
            guard let changes = self.bodyRecord() else { return Self.badBody() }
            if case .string(let newId)? = changes.fields["id"], newId != id {
                return APIService.error(.badRequest, "BadRequestException", "an update cannot change the record's id")
            }
            if let refusal = self.deniedWrite(changes) { return refusal }
            var changed = changes
            changed.remove(["id"])
            let decision = self.decide(.update, before: stored.fields, after: changed.fields)
            if let refusal = self.refusal(decision) { return refusal }
            for member in changed.members {
                stored.set(member.key, json: member.json, field: changed.fields[member.key] ?? .null)
            }
            return self.save(stored, id: id, status: .ok)
        }

        /// The fields of a record a Lambda authorizer denied the caller.
        private func deniedFields(of record: APIRecord) -> Set<String> {
            guard !self.caller.deniedFields.isEmpty else { return [] }
            return Set(record.members.map(\.key).filter { self.caller.isDenied(field: $0, of: self.model) })
        }

        /// A record as the caller sees it in an answer: without the fields its Lambda authorizer denied.
        private func withoutDeniedFields(_ record: APIRecord) -> APIRecord {
            var visible = record
            visible.remove(self.deniedFields(of: record))
            return visible
        }

        /// A write of a field a Lambda authorizer denied the caller, refused as AppSync refuses it.
        private func deniedWrite(_ record: APIRecord) -> Response? {
            guard let field = self.deniedFields(of: record).sorted().first else { return nil }
            return APIAuthorizationError.forbidden(
                "the API's authorizer denies this caller the field \(self.model).\(field)", mode: self.caller.mode
            ).response
        }

        func delete() -> Response {
            guard let id = self.id, let stored = self.api.store.read(model: self.model, id: id) else { return self.notFound() }
            let decision = self.decide(.delete, before: stored.fields)
            if let refusal = self.refusal(decision) { return refusal }
            guard self.api.store.remove(model: self.model, id: id) else { return self.notFound() }
            return APIService.json(.ok, self.withoutDeniedFields(stored).json)
        }

        /// The rules' decision; an open API allows everything, as it has no caller to apply rules to.
        private func decide(_ operation: ModelOperation, before: Record? = nil, after: Record? = nil) -> RuleDecision {
            if self.isOpen { return .allowedWithoutRules(semantics: self.api.evaluator.semantics) }
            return self.api.evaluator.decide(model: self.model, operation: operation, caller: self.ruleCaller, before: before, after: after)
        }

        private func save(_ record: APIRecord, id: String, status: HTTPResponse.Status) -> Response {
            do {
                try self.api.store.write(record, model: self.model, id: id)
            } catch {
                return APIService.error(.internalServerError, "InternalFailure", "the record could not be stored: \(error.message)")
            }
            return APIService.json(status, self.withoutDeniedFields(record).json)
        }

        private func bodyRecord() -> APIRecord? {
            APIRecord(json: Array(self.body.readableBytesView))
        }

        private static func badBody() -> Response {
            APIService.error(.badRequest, "BadRequestException", "the request body must be a JSON object of the record's fields")
        }

        private func notFound() -> Response {
            APIService.error(.notFound, "NotFoundException", "no \(self.model) has id '\(self.id ?? "")'")
        }

        /// A denial as the API answers it: `ConditionalCheckFailedException` when the stored record's owner
        /// or groups refuse, `ForbiddenException` otherwise; `nil` for an allowed operation.
        private func refusal(_ decision: RuleDecision) -> Response? {
            guard !decision.isAllowed else { return nil }
            let conditional = !decision.isAllowed && self.isWrite && Self.isConditional(decision)
            let type = conditional ? "ConditionalCheckFailedException" : "ForbiddenException"
            let error = APIAuthorizationError(
                status: .forbidden, errorType: type, message: decision.explanation, rule: decision.rule?.summary, mode: self.caller.mode)
            return error.response
        }

        private static func isConditional(_ decision: RuleDecision) -> Bool {
            switch decision.reason {
            case .notOwner, .notInGroups, .notInGroupsField, .ownerChangeByNonOwner, .createdForSomeoneElse: return true
            default: return false
            }
        }

        /// Whether a decision refuses the caller whatever the records hold.
        private static func refusesCaller(_ decision: RuleDecision) -> Bool {
            switch decision.reason {
            case .signedOut, .noRuleForAuthMode, .noRuleForOperation, .noRules: return true
            default: return false
            }
        }
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func error(_ status: HTTPResponse.Status, _ type: String, _ message: String) -> Response {
        APIAuthorizationError(status: status, errorType: type, message: message).response
    }
}
