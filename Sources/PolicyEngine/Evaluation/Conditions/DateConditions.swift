import WIFFoundation

/// `DateEquals`, `DateNotEquals`, `DateLessThan`, `DateLessThanEquals`, `DateGreaterThan`,
/// `DateGreaterThanEquals`. Values are ISO 8601 dates or date-times, or epoch seconds, compared to the
/// millisecond. A request value that is not a date matches no policy value.
enum DateConditions {
    static func parse(_ text: String) -> Int64? {
        AWSDate.parseConditionDate(bytes: Array(text.utf8))
    }

    static func firstMatch(_ base: ConditionOperator.Base, _ dates: [Int64], _ requestValue: [UInt8]) -> Int? {
        guard let actual = AWSDate.parseConditionDate(bytes: requestValue) else { return nil }
        return dates.firstIndex { expected in
            switch base {
            case .dateEquals, .dateNotEquals: return actual == expected
            case .dateLessThan: return actual < expected
            case .dateLessThanEquals: return actual <= expected
            case .dateGreaterThan: return actual > expected
            case .dateGreaterThanEquals: return actual >= expected
            default: return false
            }
        }
    }
}
