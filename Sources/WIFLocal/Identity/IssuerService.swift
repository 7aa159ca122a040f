import Hummingbird

// Placeholder until the development issuer lands: answers nothing, so every request falls through.
struct IssuerService: Sendable {
    init(state: LocalState) throws(LocalStackError) {}

    func respond(to request: Request) async -> Response? { nil }
}
