import Crypto
import Foundation
import Logging
import Synchronization
import WIFCredentials
import WIFTestSupport

/// A provider that hands out `KEY1`, and after `invalidate(accessKeyId:)` of the current key the next
/// one (`KEY2`, …), recording the invalidations.
final class RotatingCredentialProvider: CredentialProvider {
    private let state = Mutex<(generation: Int, invalidated: [String], calls: Int)>((1, [], 0))

    var invalidated: [String] { self.state.withLock { $0.invalidated } }
    var calls: Int { self.state.withLock { $0.calls } }

    func getCredentials(logger: Logger) async throws -> AWSCredentials {
        let generation = self.state.withLock {
            $0.calls += 1
            return $0.generation
        }
        return AWSCredentials(
            accessKeyId: "KEY\(generation)", secretAccessKey: "secret-\(generation)", sessionToken: "token-\(generation)")
    }

    func invalidate(accessKeyId: String) async {
        self.state.withLock {
            $0.invalidated.append(accessKeyId)
            if accessKeyId == "KEY\($0.generation)" { $0.generation += 1 }
        }
    }
}

/// A provider that always fails.
struct FailingCredentialProvider: CredentialProvider {
    func getCredentials(logger: Logger) async throws -> AWSCredentials {
        throw WIFCredentialsError.noCredentials("no provider in the chain had credentials")
    }
}

extension TemporaryFolder {
    /// Writes `size` bytes of a deterministic pattern and returns their SHA-256 in hex.
    @discardableResult
    func writePatternFile(_ name: String, size: Int, seed: UInt64 = 1) throws -> String {
        let bytes = patternBytes(size: size, seed: seed)
        FileManager.default.createFile(atPath: self.file(name), contents: Data(bytes))
        return sha256Hex(bytes)
    }
}

/// Deterministic pseudo-random bytes (xorshift), so that misplaced parts change the checksum.
func patternBytes(size: Int, seed: UInt64) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var bytes = [UInt8](repeating: 0, count: size)
    var index = 0
    while index < size {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        var word = state
        for _ in 0..<8 where index < size {
            bytes[index] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            index += 1
        }
    }
    return bytes
}

func sha256Hex(_ bytes: some DataProtocol) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}

func fileSHA256(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else { throw TestFailure("cannot read \(path)") }
    return sha256Hex(data)
}
