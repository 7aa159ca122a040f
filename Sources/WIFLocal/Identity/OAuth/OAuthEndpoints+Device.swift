import Hummingbird
import WIFFoundation

extension OAuthEndpoints {
    /// `POST /oauth2/device_authorization` (RFC 8628 §3.1–3.2): `scope` defaults to `openid`.
    func deviceAuthorization(_ request: Request, baseURL: String) async -> Response {
        let form: OAuthForm
        let client: OAuthClient
        switch await self.clientRequest(request) {
        case .success(let parameters): (form, client) = parameters
        case .failure(let error): return Self.error(error)
        }
        let scopes: [String]
        switch Self.scopes(form["scope"] ?? "openid") {
        case .success(let value): scopes = value
        case .failure(let error): return Self.error(error)
        }
        let start = await self.server.startDevice(clientId: client.clientId, scopes: scopes)
        let verification = baseURL + Self.devicePath
        let complete = verification + "?user_code=" + PercentEncoding.encode(start.userCode)
        return Self.json(
            #"{"device_code":"\#(start.deviceCode)","user_code":"\#(start.userCode)","verification_uri":"\#(verification)","#
                + #""verification_uri_complete":"\#(complete)","expires_in":\#(start.expiresIn),"interval":\#(start.interval)}"#
        )
    }

    /// `GET|POST /oauth2/device`: the verification page. Without a user code, or with one but no user, a
    /// form; with `user_code` and `login_hint`, the request is approved for that user; with
    /// `action=deny`, it is denied. Each answer is a small HTML page.
    ///
    /// Wrong user codes are counted per client address (``UserCodeThrottle``): past the limit, every
    /// submission with a code is answered 429 with `Retry-After` until the window ends, the right code
    /// included, so guessing gains nothing.
    func verificationPage(_ request: Request, sourceIp: String? = nil) async -> Response {
        let form: OAuthForm
        switch await self.parameters(of: request) {
        case .success(let parameters): form = parameters
        case .failure(let error): return Self.html(OAuthPages.message(title: "Bad request", text: error.message), status: .badRequest)
        }
        let action = form["action"] ?? "approve"
        guard action == "approve" || action == "deny" else {
            return Self.html(OAuthPages.message(title: "Bad request", text: "action must be approve or deny, not '\(action)'"), status: .badRequest)
        }
        guard let userCode = form["user_code"] else {
            return Self.html(OAuthPages.deviceForm(userCode: nil, pending: nil, problem: nil))
        }
        let pending: (clientId: String, scopes: [String])
        switch await self.server.lookUpDevice(userCode: userCode, from: sourceIp ?? "unknown") {
        case .pending(let clientId, let scopes):
            pending = (clientId, scopes)
        case .unknown:
            return Self.html(
                OAuthPages.deviceForm(userCode: nil, pending: nil, problem: "The code \(userCode) is unknown, has expired or was already used."),
                status: .badRequest
            )
        case .throttled(let retryAfter):
            var response = Self.html(
                OAuthPages.message(
                    title: "Too many wrong codes",
                    text: "Too many wrong codes were entered; wait \(retryAfter) seconds before entering a code again."),
                status: .tooManyRequests
            )
            response.headers[.retryAfter] = String(retryAfter)
            return response
        }
        let subject: String?
        if action == "deny" {
            subject = nil
        } else {
            guard let user = form["login_hint"] else {
                // A submitted form without a user name says so; a link with only the code shows the form.
                let problem = form["action"] == nil ? nil : "Enter the development user to sign in as."
                return Self.html(OAuthPages.deviceForm(userCode: userCode, pending: pending, problem: problem), status: problem == nil ? .ok : .badRequest)
            }
            if let problem = Self.userProblem(user) {
                return Self.html(OAuthPages.deviceForm(userCode: userCode, pending: pending, problem: problem), status: .badRequest)
            }
            subject = user
        }
        switch await self.server.decideDevice(userCode: userCode, approvingAs: subject) {
        case .approved:
            return Self.html(OAuthPages.message(title: "Signed in", text: "Signed in to \(pending.clientId) as \(subject ?? ""). You can return to your device."))
        case .denied:
            return Self.html(OAuthPages.message(title: "Request denied", text: "The request of \(pending.clientId) was denied."))
        case .expired:
            return Self.html(OAuthPages.message(title: "Code expired", text: "The code \(userCode) has expired; start again on your device."), status: .badRequest)
        case .alreadyDecided, .unknown:
            return Self.html(OAuthPages.message(title: "Code already used", text: "The code \(userCode) was already used."), status: .badRequest)
        }
    }
}
