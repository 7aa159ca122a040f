import AccessRules
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import NIOCore
import WIFAPIServer

/// The request context of the app's routes: Hummingbird's, with the caller the API middleware found.
public typealias AppContext = BasicAuthRequestContext<APICaller>

extension FileServer {
    /// The notes API: JSON notes kept in memory, behind ``APIAuthenticatorMiddleware`` and the access
    /// rules of ``notesSchema``.
    ///
    /// | request | answer |
    /// | --- | --- |
    /// | `POST /notes` | `201` the note, its `owner` filled with the caller's `sub` |
    /// | `GET /notes` | `200 {"items": […]}`: the notes the caller may read |
    /// | `GET /notes/<id>` | `200` the note, or `403` with the refusing rule |
    public struct NotesAPI: Sendable {
        /// The modes the API accepts.
        public var modes: [APIAuthorizationMode]
        /// The OpenID Connect issuer whose ID tokens are `OPENID_CONNECT` callers.
        public var issuer: String
        /// The accepted audiences.
        public var clientIds: Set<String>
        /// Where the issuer's keys are.
        public var jwksURL: String
        /// The API keys.
        public var apiKeys: [APIKey]

        /// Creates the API's settings.
        public init(modes: [APIAuthorizationMode] = [.oidc, .apiKey], issuer: String, clientIds: Set<String>, jwksURL: String, apiKeys: [APIKey]) {
            self.modes = modes
            self.issuer = issuer
            self.clientIds = clientIds
            self.jwksURL = jwksURL
            self.apiKeys = apiKeys
        }
    }

    /// Owners do everything with their notes; an API key reads them.
    public static let notesSchema = """
        type Note @model @auth(rules: [
          { allow: owner, provider: oidc, identityClaim: "sub" },
          { allow: public, provider: apiKey, operations: [read] }
        ]) {
          id: ID!
          text: String
          owner: String
        }
        """

    /// The authenticator of the notes API, loading the issuer's keys with `httpClient`.
    static func notesAuthenticator(_ notes: NotesAPI, httpClient: HTTPClient) -> APIAuthenticator {
        let url = notes.jwksURL
        let authority = APITokenAuthority(kind: .oidc, issuer: notes.issuer, clientIds: notes.clientIds) {
            let response = try await httpClient.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            guard response.status == .ok else { throw FileServerError.upstreamFailure("the issuer's keys at \(url) answered HTTP \(response.status.code)") }
            return Array((try await response.body.collect(upTo: 1 << 20)).readableBytesView)
        }
        return APIAuthenticator(modes: notes.modes, apiKeys: notes.apiKeys, oidc: authority)
    }

    /// Adds the notes routes to a group behind the API middleware.
    func addNoteRoutes(to notes: RouterGroup<AppContext>, authenticator: APIAuthenticator) {
        let group = notes.add(middleware: APIAuthenticatorMiddleware(authenticator, pathPrefix: "/notes"))
        group.post { request, context in try await self.createNote(request, context: context) }
        group.get { _, context in try await self.listNotes(context: context) }
        group.get(":id") { _, context in try await self.readNote(context: context) }
    }

    func createNote(_ request: Request, context: AppContext) async throws -> Response {
        let caller = try context.requireRuleCaller()
        let body = try await request.body.collect(upTo: 64 * 1024)
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw FileServerError.invalidRequest("the body must be a JSON object such as {\"text\": \"…\"}")
        }
        var note = Note(id: UUID().uuidString.lowercased(), text: object["text"] as? String, owner: object["owner"] as? String)
        for (field, value) in self.noteRules.ownerFields(model: "Note", caller: caller, record: note.record) where field == "owner" {
            note.owner = value
        }
        let decision = self.noteRules.decide(model: "Note", operation: .create, caller: caller, after: note.record)
        try Self.enforce(decision)
        await self.notes.put(note)
        return try Self.json(note, status: .created)
    }

    func listNotes(context: AppContext) async throws -> Response {
        let caller = try context.requireRuleCaller()
        let readable = await self.notes.all().filter {
            self.noteRules.decide(model: "Note", operation: .list, caller: caller, before: $0.record).isAllowed
        }
        return try Self.json(["items": readable], status: .ok)
    }

    func readNote(context: AppContext) async throws -> Response {
        let caller = try context.requireRuleCaller()
        let id = context.parameters.get("id") ?? ""
        guard let note = await self.notes.get(id) else { throw FileServerError.noSuchNote(id) }
        try Self.enforce(self.noteRules.decide(model: "Note", operation: .get, caller: caller, before: note.record))
        return try Self.json(note, status: .ok)
    }

    /// A refusal as the API answers it: 403 with the rule.
    static func enforce(_ decision: RuleDecision) throws {
        guard !decision.isAllowed else { return }
        throw APIAuthorizationError.forbidden(decision.explanation, rule: decision.rule?.summary)
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        let data = try JSONEncoder().encode(value)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// One note.
struct Note: Codable, Sendable {
    var id: String
    var text: String?
    var owner: String?

    /// What the rules read.
    var record: Record {
        ["id": .string(self.id), "text": self.text.map(RecordValue.string) ?? .null, "owner": self.owner.map(RecordValue.string) ?? .null]
    }
}

/// The notes, in memory.
actor NoteStore {
    private var notes: [String: Note] = [:]

    func put(_ note: Note) { self.notes[note.id] = note }
    func get(_ id: String) -> Note? { self.notes[id] }
    func all() -> [Note] { self.notes.values.sorted { $0.id < $1.id } }
}
