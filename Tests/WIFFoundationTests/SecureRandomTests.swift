import Testing
import WIFFoundation

@Suite struct SecureRandomTests {
    @Test func fillsWholeBuffersThatDiffer() {
        let first = SecureRandom.bytes(4096)
        let second = SecureRandom.bytes(4096)
        #expect(first.count == 4096 && second.count == 4096)
        #expect(first != second)
        // Every byte value turns up in 4 KiB of random bytes, but for a chance far below 1 in 10^6.
        #expect(Set(first).count > 200)
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(1).count == 1)
    }
}
