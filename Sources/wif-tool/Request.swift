import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WIFCredentials
import WIFFoundation
import WIFHTTP
import WIFTerminal

extension WIFTool {
    /// `wif-tool request`: send (or show) a SigV4-signed request.
    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "request",
            abstract: "Send a SigV4-signed request to any AWS-compatible service, or call an Amplify API in any authorization mode.",
            discussion: """
                wif-tool request --service NAME URL: signs with credentials from the environment, web identity \
                or the selected profile. --dry-run prints the signed request instead of sending it: the \
                first line is 'METHOD URL', then one 'Name: value' line per header (with --json, an object \
                with method, url and headers). --presign SECONDS prints a presigned URL instead.

                wif-tool request --api NAME [METHOD] PATH: calls an API of an amplifyconfiguration.json or \
                amplify_outputs.json (--config), or without one the API the local stack publishes (the \
                embedded stack, or the one at --endpoint), as the signed-in user: the sign-in's token for \
                AMAZON_COGNITO_USER_POOLS and OPENID_CONNECT, its identity pool or role credentials for \
                AWS_IAM, the configured key for API_KEY, --lambda-token for AWS_LAMBDA. --auth-mode picks one mode (default: the API's); \
                --multi-auth --model M --operation OP tries the modes of the model's rules in Amplify's \
                order, falling back only after an authorization failure. Standard error names the mode that \
                answered; --json prints mode, attempts, status and body.

                Exit status for --api: 0 a 2xx answer; 4 refused (401 or 403); 5 not found; 1 another \
                answer; 3 no credentials for any mode tried; 7 the API cannot be reached; 64 bad options.
                """
        )

        @OptionGroup var options: GlobalOptions
        @OptionGroup var store: StoreOptions

        @Option(name: [.customShort("X"), .customLong("method")], help: "The HTTP method (default GET, or POST with --data).")
        var method: String?

        @Option(name: [.customShort("H"), .long], help: "A header 'Name: value'; repeat for more.")
        var header: [String] = []

        @Option(name: [.short, .long], help: "The request body: TEXT, or @FILE to read a file.")
        var data: String?

        @Option(name: .long, help: "The service name in the credential scope, such as s3, sts or execute-api.")
        var service: String?

        @Option(name: .long, help: "Call the Amplify API of this name instead of a URL.")
        var api: String?

        @OptionGroup var call: APICallOptions

        @Flag(name: [.short, .customLong("include")], help: "Print the response status line and headers.")
        var include = false

        @Flag(name: .long, help: "Print the signed request instead of sending it.")
        var dryRun = false

        @Option(name: .long, help: "Sign at this time, as 20150830T123600Z (dry runs and presigning only).")
        var date: String?

        @Option(name: .long, help: "Print a presigned URL valid for SECONDS instead of sending.")
        var presign: Int?

        @Argument(help: "The URL to request; with --api, [METHOD] PATH relative to the API's URL.")
        var target: [String] = []

        /// The URL, for a request without --api.
        var url: String { self.target.first ?? "" }

        func validate() throws {
            if self.api != nil {
                try self.validateAPI()
                return
            }
            guard self.service != nil else { throw ValidationError("give --service NAME (or --api NAME to call an Amplify API)") }
            guard self.target.count == 1 else { throw ValidationError("give exactly one URL") }
            if let flag = self.call.givenFlags.first { throw ValidationError("\(flag) goes with --api") }
            if let date, Self.parseDate(date) == nil {
                throw ValidationError("--date must look like 20150830T123600Z, not '\(date)'")
            }
            if self.date != nil && !self.dryRun && self.presign == nil {
                throw ValidationError("--date is only allowed with --dry-run or --presign")
            }
            if let presign, !(1...SigV4Signer.maximumExpiry).contains(presign) {
                throw ValidationError("--presign must be between 1 and \(SigV4Signer.maximumExpiry) seconds")
            }
            for line in self.header where Self.splitHeader(line) == nil {
                throw ValidationError(Self.headerMistake(line))
            }
            guard let parsed = URL(string: self.url), let scheme = parsed.scheme?.lowercased(),
                scheme == "http" || scheme == "https", parsed.host() != nil
            else {
                throw ValidationError("'\(self.url)' is not an http or https URL with a host")
            }
        }

        func run() async throws {
            if self.api != nil {
                try await self.runAPI()
                return
            }
            try await reportingErrors {
                let logger = self.options.makeLogger()
                let body = try self.readBody()
                let method = (self.method ?? (body == nil ? "GET" : "POST")).uppercased()
                guard let url = URL(string: self.url) else {
                    throw CommandFailure(status: .usage, message: "'\(self.url)' is not a URL")
                }
                let headers = self.header.compactMap(Self.splitHeader).map { SigV4Request.Header($0.0, $0.1) }
                var request = try SigV4Request(method: method, url: url, headers: headers)
                let credentials = try await self.options.credentialProvider().getCredentials(logger: logger)
                let signer = SigV4Signer(credentials: credentials, region: self.options.resolvedRegion(), service: self.service ?? "")
                let signingDate = self.date.flatMap(Self.parseDate) ?? Date()
                let payload: SigV4Signer.Payload = body.map { .bytes($0) } ?? .empty

                if let expires = self.presign {
                    printRaw(try signer.presign(request, payload: nil, date: signingDate, expires: expires) + "\n")
                    return
                }
                try signer.sign(&request, payload: payload, date: signingDate)
                if !request.headers.contains(where: { $0.name.lowercased() == "host" }) {
                    request.headers.insert(.init("Host", request.host), at: 0)
                }
                if self.dryRun {
                    self.printDryRun(request)
                    return
                }
                try await self.send(request, body: body)
            }
        }

        func readBody() throws -> [UInt8]? {
            guard let data = self.data else { return nil }
            guard data.hasPrefix("@") else { return Array(data.utf8) }
            let path = String(data.dropFirst())
            do throws(FileContents.Failure) {
                return try FileContents.read(path, limit: PolicyInputs.maximumInputSize)
            } catch {
                throw CommandFailure(status: .io, message: "cannot read --data file '\(path)': \(error.reason)")
            }
        }

        private func printDryRun(_ request: SigV4Request) {
            if self.options.json {
                var headers: [String: String] = [:]
                for header in request.headers {
                    headers[header.name] = headers[header.name].map { "\($0),\(header.value)" } ?? header.value
                }
                var writer = JSONWriter(pretty: false)
                writer.beginObject()
                Self.write(headers, as: "headers", to: &writer)
                writer.member("method", request.method)
                writer.member("url", request.urlString)
                writer.endObject()
                printRaw(writer.output + "\n")
                return
            }
            var text = "\(request.method) \(request.urlString)\n"
            for header in request.headers { text += "\(header.name): \(header.value)\n" }
            printRaw(text)
        }

        /// Writes `headers` as the member `key`: an object with its names in order, as every `--json`
        /// line keeps its keys sorted.
        private static func write(_ headers: [String: String], as key: String, to writer: inout JSONWriter) {
            writer.key(key)
            writer.beginObject()
            for name in headers.keys.sorted() {
                writer.key(name)
                writer.string(headers[name] ?? "")
            }
            writer.endObject()
        }

        private func send(_ request: SigV4Request, body: [UInt8]?) async throws {
            var outgoing = HTTPClientRequest(url: request.urlString)
            outgoing.method = HTTPMethod(rawValue: request.method)
            for header in request.headers where header.name.lowercased() != "host" {
                outgoing.headers.add(name: header.name, value: header.value)
            }
            if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
            let response: HTTPClientResponse
            do {
                response = try await HTTPClient.wifShared.execute(outgoing, timeout: .seconds(60))
            } catch {
                throw CommandFailure(status: .network, message: "\(request.method) \(request.redactedURLString) failed: \(TransportFailure.reason(error))")
            }
            if self.options.json {
                let collected = try await response.body.collect(upTo: 64 * 1024 * 1024)
                var headers: [String: String] = [:]
                for (name, value) in response.headers {
                    headers[name] = headers[name].map { "\($0),\(value)" } ?? value
                }
                var writer = JSONWriter(pretty: false)
                writer.beginObject()
                writer.member("body", String(decoding: collected.readableBytesView, as: UTF8.self))
                Self.write(headers, as: "headers", to: &writer)
                writer.member("status", Int(response.status.code))
                writer.endObject()
                printRaw(writer.output + "\n")
            } else {
                if self.include {
                    var head = "HTTP/\(response.version.major).\(response.version.minor) \(response.status.code) \(response.status.reasonPhrase)\n"
                    for (name, value) in response.headers { head += "\(name): \(value)\n" }
                    printRaw(head + "\n")
                }
                for try await buffer in response.body {
                    do {
                        try FileHandle.standardOutput.write(contentsOf: buffer.readableBytesView)
                    } catch {
                        // The reader went away (`wif-tool request … | head`): stop, as a write error.
                        throw CommandFailure(status: .io, message: "cannot write the answer to standard output; was it closed?")
                    }
                }
            }
            if !(200..<300).contains(response.status.code) {
                printError("error: HTTP \(response.status.code) \(response.status.reasonPhrase)\n")
                throw ExitStatus.failure.exitCode
            }
        }

        /// The error for a `--header` that is not `Name: value`. Only its first word is quoted: a
        /// mistyped header is often `Authorization Bearer …` or `x-api-key=…`, whose value is a secret.
        static func headerMistake(_ line: String) -> String {
            // A header name is a token (RFC 9110); anything else may be the value itself, such as a key
            // given without its name, and is not quoted at all.
            let name = line.utf8.prefix { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
            let next = line.utf8.dropFirst(name.count).first
            guard !name.isEmpty, name.count <= 64, next == UInt8(ascii: " ") || next == UInt8(ascii: "=") || next == UInt8(ascii: "\t")
            else { return "--header must look like 'Name: value' (the text given is not shown)" }
            return "--header must look like 'Name: value', not '\(String(decoding: name, as: UTF8.self)) …' (the value is not shown)"
        }

        static func splitHeader(_ line: String) -> (String, String)? {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimming(.whitespaces)
            guard !name.isEmpty, !name.contains(" ") else { return nil }
            return (name, line[line.index(after: colon)...].trimming(.whitespaces))
        }

        static func parseDate(_ text: String) -> Date? {
            let bytes = Array(text.utf8)
            guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
            var components = DateComponents()
            components.calendar = Calendar(identifier: .gregorian)
            components.timeZone = TimeZone(identifier: "UTC")
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for byte in bytes[range] {
                    guard (48...57).contains(byte) else { return nil }
                    value = value * 10 + Int(byte - 48)
                }
                return value
            }
            guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
                let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
            else { return nil }
            components.year = year
            components.month = month
            components.day = day
            components.hour = hour
            components.minute = minute
            components.second = second
            return components.date
        }
    }
}
