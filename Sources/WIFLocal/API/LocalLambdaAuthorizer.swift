/// The function an `AWS_LAMBDA` API calls to decide a token: on the local stack, a command it runs.
///
/// The command gets one JSON event on standard input, in the shape AppSync sends a Lambda
/// authorizer, with the REST call's method and path in the request context:
///
/// ```json
/// {"authorizationToken": "…", "requestContext": {"apiId": "todo", "accountId": "000000000000",
///  "requestId": "…", "stage": "local", "httpMethod": "GET", "path": "/Todo/1"},
///  "requestHeaders": {"authorization": "…", "host": "…"}}
/// ```
///
/// and writes one JSON answer on standard output, as a Lambda authorizer returns it:
///
/// ```json
/// {"isAuthorized": true, "resolverContext": {"sub": "user-1"}, "deniedFields": ["Todo.secret"], "ttlOverride": 60}
/// ```
///
/// `resolverContext` (string values) becomes the caller's claims for the access rules; `deniedFields`
/// (`Type.field`, or a field's ARN) are left out of the records the caller reads and may not be written;
/// `ttlOverride` replaces ``resultTTLSeconds`` for this token. Whatever the command writes on standard
/// error goes to the stack's. A command that fails, exits with a status other than 0, answers anything
/// else (or more than 1 MiB) or takes longer than ``timeoutSeconds`` is killed and refuses the token
/// with 401, as AppSync does when its function fails; the stack logs why (never the token). The command
/// runs with the stack's environment and working folder.
public struct LocalLambdaAuthorizer: Sendable, Hashable {
    /// The program and its arguments; a program named without a `/` is looked up on `PATH`.
    public var command: [String]
    /// How long a decision about a token is reused, in seconds, unless the answer names its own
    /// (AppSync's default is 300); 0 runs the command for every request.
    public var resultTTLSeconds: Int
    /// How long the command may take, in seconds (AppSync's limit is 10).
    public var timeoutSeconds: Int

    /// Creates an authorizer.
    /// - Parameters:
    ///   - command: The program and its arguments.
    ///   - resultTTLSeconds: How long a decision is reused.
    ///   - timeoutSeconds: How long the command may take.
    public init(command: [String], resultTTLSeconds: Int = 300, timeoutSeconds: Int = 10) {
        self.command = command
        self.resultTTLSeconds = resultTTLSeconds
        self.timeoutSeconds = timeoutSeconds
    }

    /// The longest `resultTTLSeconds` or `ttlOverride`, an hour, as AppSync allows.
    public static let longestTTLSeconds = 3600
    /// The longest `timeoutSeconds`.
    public static let longestTimeoutSeconds = 60
}
