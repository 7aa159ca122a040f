#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

#if canImport(FoundationEssentials) || canImport(Foundation)
extension Timestamp {
    /// Creates a timestamp from a `Date` (truncated to the millisecond).
    /// - Parameter date: The date.
    public init(_ date: Date) {
        self.init(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The timestamp as a `Date`.
    public var date: Date {
        Date(timeIntervalSince1970: Double(self.millisecondsSince1970) / 1000)
    }
}
#endif
