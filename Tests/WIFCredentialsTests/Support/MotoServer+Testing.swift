import Testing
import WIFTestSupport

extension MotoServer {
    /// Why moto tests were skipped, for `.enabled(if:_:)`.
    static var skipReason: Comment { Comment(rawValue: Self.skipReasonText) }
}
