import AccessRules
import ArgumentParser
import Foundation
import WIFCredentials
import WIFFoundation

extension WIFTool.Rules {
    /// `wif-tool rules compile`: storage rules to IAM policies, proved equal to the rules.
    struct Compile: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "compile",
            abstract: "Compile storage rules to the IAM policies of an identity pool's roles, and prove them.",
            discussion: """
                STORAGE.json mirrors Amplify Gen 2's storage access: {"bucket", "paths": {"public/*": \
                [{"allow": "guest" | "authenticated" | "entity" | "groups", "entity"?: "identity", \
                "groups"?: [...], "to": ["read" | "get" | "list" | "write" | "delete", ...]}]}}; read is get \
                and list. A key is governed by the most specific path holding it, and a group member has \
                only the group's rules, as the identity pool gives the group's role.

                Writes to --out DIR one permissions policy per role: unauthenticated.json (guest rules), \
                authenticated.json (signed-in and owner rules), group-NAME.json; with --pool ID also each \
                role's trust policy, ROLE.trust.json. {entity_id} becomes \
                ${cognito-identity.amazonaws.com:sub}, or ${KEY} with --subject-key KEY (plain web identity, \
                such as accounts.google.com:sub); --engine seaweedfs uses ${jwt:sub}. An engine that cannot \
                express a construct is refused with the path and the construct: SeaweedFS and Ceph RGW have \
                no guests and no group roles, and Ceph RGW refuses policy variables in Resource.

                Then the proof: the policies decide, in the policy simulator, every request of a generated \
                matrix (guests, signed-in identities with ordinary and adversarial ids, each group; every \
                path's folders and their parents, keys outside; get, put, delete, and list with and \
                without prefix) as the rules do. Each disagreement is printed as a counterexample, and then \
                nothing is written. --check proves without writing.

                Exit status: 0 compiled and proved; 1 a counterexample; \(ExitStatus.usage.rawValue) bad \
                options, rules with errors (listed as in 'rules validate') or a construct the engine cannot \
                express; \(ExitStatus.io.rawValue) a file cannot be read or written.
                """
        )

        @OptionGroup var options: GlobalOptions

        @Argument(help: "The storage rules file ('-' for standard input).")
        var file: String

        @Option(name: .long, help: "Write the policies into this folder (made when missing).")
        var out: String?

        @Flag(name: .long, help: "Only prove; write nothing.")
        var check = false

        @Option(name: .long, help: "The identity pool whose roles' trust policies are written too (REGION:UUID).")
        var pool: String?

        @Option(name: .long, help: "The engine: aws (the default, also the local stack), seaweedfs or ceph-rgw.")
        var engine: String = StorageCompiler.Engine.aws.rawValue

        @Option(name: .long, help: "The context key {entity_id} stands for (default cognito-identity.amazonaws.com:sub).")
        var subjectKey: String = StorageCompiler.identityPoolSubjectKey

        func validate() throws {
            guard StorageCompiler.Engine(rawValue: self.engine) != nil else {
                throw ValidationError("--engine is aws, seaweedfs or ceph-rgw, not '\(self.engine)'")
            }
            if self.check == (self.out != nil) {
                throw ValidationError(self.check ? "--check writes nothing; give it without --out" : "give --out DIR to write the policies, or --check to prove only")
            }
            if let pool {
                do {
                    try CognitoIdentityClient.checkId(pool, name: "--pool")
                } catch {
                    throw ValidationError(error.reason)
                }
            }
            let key = self.subjectKey.split(separator: ":", omittingEmptySubsequences: false)
            guard key.count >= 2, key.allSatisfy({ !$0.isEmpty }), !self.subjectKey.contains(where: { "${}* ?".contains($0) }) else {
                throw ValidationError("--subject-key is a context key such as accounts.google.com:sub, not '\(self.subjectKey)'")
            }
        }

        struct Output: Encodable {
            var file: String
            var engine: String
            var subjectKey: String
            var roles: [String]
            var written: [String]
            var checked: Int
            var proved: Bool
            var counterexamples: [String]
        }

        func run() async throws {
            try await reportingErrors {
                let bytes = try PolicyInputs.read(self.file)
                let read = StorageRules.read(json: bytes)
                if read.hasErrors || !read.diagnostics.isEmpty {
                    for diagnostic in read.diagnostics { printError("\(diagnostic.formatted(sourceName: self.file))\n") }
                }
                if read.hasErrors {
                    throw CommandFailure(status: .usage, message: "\(self.file) has errors; nothing was compiled")
                }
                let compiler = StorageCompiler(
                    engine: StorageCompiler.Engine(rawValue: self.engine) ?? .aws, subjectKey: self.subjectKey, identityPoolId: self.pool)
                let compiled: CompiledStoragePolicies
                let proof: StorageProof.Result
                do throws(AccessRulesError) {
                    compiled = try compiler.compile(read.rules)
                    proof = try StorageProof.check(read.rules, compiled: compiled)
                } catch {
                    throw CommandFailure(status: .usage, message: error.reason)
                }
                var written: [String] = []
                if proof.holds, let out = self.out {
                    written = try Self.write(compiled, to: URL(fileURLWithPath: out))
                }
                let shown = proof.counterexamples.prefix(20).map(\.description)
                if self.options.json {
                    try printJSON(Output(
                        file: self.file, engine: compiled.engine.rawValue, subjectKey: compiled.subjectKey,
                        roles: compiled.roles.map(\.fileName), written: written, checked: proof.checked, proved: proof.holds,
                        counterexamples: shown))
                } else {
                    for line in shown { printOut("counterexample: \(line)\n") }
                    if proof.counterexamples.count > shown.count {
                        printOut("… and \(proof.counterexamples.count - shown.count) more counterexamples\n")
                    }
                    for path in written { printOut("wrote \(path)\n") }
                    let roles = compiled.roles.map(\.description).joined(separator: ", ")
                    printOut(
                        proof.holds
                            ? "proved: the policies of \(roles) decide \(proof.checked) requests as the rules do\n"
                            : "NOT proved: \(proof.counterexamples.count) of \(proof.checked) requests are decided otherwise by the policies; nothing was written\n")
                }
                if !proof.holds { throw ExitStatus.failure.exitCode }
            }
        }

        /// Writes each policy into the folder, each to a temporary file renamed into place.
        static func write(_ compiled: CompiledStoragePolicies, to folder: URL) throws(CommandFailure) -> [String] {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure(status: .io, message: "cannot create \(folder.path): \(FileFailure.reason(error, path: folder.path))")
            }
            var written: [String] = []
            var files: [(String, String)] = compiled.roles.compactMap { role in compiled.policies[role].map { (role.fileName, $0) } }
            files += compiled.roles.compactMap { role in compiled.trustPolicies[role].map { (role.trustFileName, $0) } }
            // Every place is checked before the first file is written, so a folder in the way of one file
            // does not leave the others written.
            for (name, _) in files {
                let target = folder.appendingPathComponent(name).path
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: target, isDirectory: &isFolder), isFolder.boolValue {
                    throw CommandFailure(status: .io, message: "cannot write \(target): a folder is in the way; nothing was written")
                }
            }
            for (name, text) in files {
                let target = folder.appendingPathComponent(name)
                do {
                    // Written beside the target and renamed over it, so a reader never sees half a policy.
                    try Data(text.utf8).write(to: target, options: .atomic)
                } catch {
                    throw CommandFailure(status: .io, message: "cannot write \(target.path): \(FileFailure.reason(error, path: target.path))")
                }
                written.append(target.path)
            }
            return written
        }
    }
}
