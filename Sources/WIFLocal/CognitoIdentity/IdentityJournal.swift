import Foundation
import WIFFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The identity registry's changes, one JSON object a line in `<data>/identities.jsonl`, so identities
/// (a guest's above all, whose id is random) outlive a restart of the stack: the embedded stack starts
/// anew for every command, and a guest who signs in later must find their identity again.
///
/// Two kinds of line: `{"op":"create","id":…,"pool":…,"at":…}` and
/// `{"op":"link","id":…,"key":…,"subject":…,"at":…}` (logins key and subject; never a token). Lines are
/// appended under the registry's lock; a last line cut short by a crash is ignored when read back.
final class IdentityJournal: Sendable {
    /// The file's name in the data directory.
    static let fileName = "identities.jsonl"

    /// One change.
    enum Entry: Sendable, Equatable {
        case create(id: String, poolId: String, at: Int64)
        case link(id: String, key: String, subject: String, at: Int64)
    }

    /// The file's path.
    let path: String
    private let descriptor: Int32

    /// Opens the journal for appending, creating it (mode 0600) when missing.
    /// - Parameters:
    ///   - path: The file.
    ///   - length: The length of its complete lines, from ``read(path:)``: a line cut short after them is
    ///     removed, so the next entry starts a line of its own.
    /// - Throws: ``LocalStackError`` when it cannot be opened.
    init(path: String, keeping length: Int) throws(LocalStackError) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw LocalStackError("cannot open the identity journal \(path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        var status = stat()
        if fstat(descriptor, &status) == 0, Int(status.st_size) > length, ftruncate(descriptor, off_t(length)) != 0 {
            throw LocalStackError("cannot remove the unfinished last line of the identity journal \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(self.descriptor)
    }

    /// Reads the entries of a journal; none when the file does not exist.
    /// - Returns: The entries, and the length of the complete lines they were read from.
    /// - Throws: ``LocalStackError`` naming the line that is not an entry; a last line without its
    ///   newline (a write cut short) is skipped, not reported.
    static func read(path: String) throws(LocalStackError) -> (entries: [Entry], length: Int) {
        guard let data = FileManager.default.contents(atPath: path) else { return ([], 0) }
        let length = (data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? data.startIndex) - data.startIndex
        var entries: [Entry] = []
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // What follows the last newline is either nothing or a line whose write did not finish.
        lines.removeLast()
        for (index, line) in lines.enumerated() where !line.isEmpty {
            guard let entry = Self.entry(Array(line)) else {
                throw LocalStackError(
                    "line \(index + 1) of the identity journal \(path) is not an identity entry; remove the file to forget every identity")
            }
            entries.append(entry)
        }
        return (entries, length)
    }

    /// Appends entries. A failed write is reported to the caller, whose change then stands in memory only.
    func append(_ entries: [Entry]) throws(LocalStackError) {
        guard !entries.isEmpty else { return }
        let text = entries.map(Self.line).joined()
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(self.descriptor, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                throw LocalStackError("cannot write the identity journal \(self.path): \(String(cString: strerror(errno)))")
            }
            written += result
        }
    }

    private static func line(_ entry: Entry) -> String {
        var writer = JSONWriter(pretty: false)
        writer.beginObject()
        switch entry {
        case .create(let id, let poolId, let at):
            writer.member("op", "create")
            writer.member("id", id)
            writer.member("pool", poolId)
            writer.member("at", Int(at))
        case .link(let id, let key, let subject, let at):
            writer.member("op", "link")
            writer.member("id", id)
            writer.member("key", key)
            writer.member("subject", subject)
            writer.member("at", Int(at))
        }
        writer.endObject()
        return writer.output + "\n"
    }

    private static func entry(_ bytes: [UInt8]) -> Entry? {
        guard let node = try? JSONParser.parse(bytes), let op = node.member("op")?.stringValue,
            let id = node.member("id")?.stringValue, IdentityPoolDefinition.isPoolOrIdentityId(id),
            let at = node.member("at")?.int64Value
        else { return nil }
        switch op {
        case "create":
            guard let pool = node.member("pool")?.stringValue else { return nil }
            return .create(id: id, poolId: pool, at: at)
        case "link":
            guard let key = node.member("key")?.stringValue, let subject = node.member("subject")?.stringValue else { return nil }
            return .link(id: id, key: key, subject: subject, at: at)
        default:
            return nil
        }
    }
}
