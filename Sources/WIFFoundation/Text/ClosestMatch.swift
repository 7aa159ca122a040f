/// The candidate closest to `name` (case-insensitive equality first, then a small edit distance), for
/// "did you mean" hints in policies, configuration and case files; `nil` when nothing is close.
package func closestMatch(_ name: String, in candidates: [String]) -> String? {
    let lowered = name.lowercased()
    if let exact = candidates.first(where: { $0.lowercased() == lowered }) { return exact }
    guard !name.isEmpty, name.utf8.count <= 64 else { return nil }
    var best: (String, Int)?
    for candidate in candidates {
        let distance = editDistance(Array(lowered.utf8), Array(candidate.lowercased().utf8))
        if distance <= max(2, candidate.utf8.count / 5), distance < (best?.1 ?? Int.max) {
            best = (candidate, distance)
        }
    }
    return best?.0
}

private func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
