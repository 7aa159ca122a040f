import WIFFoundation

/// Byte offsets to 1-based lines and columns (in characters), shared by the SDL and JSON readers.
struct LineLocator {
    private var locator: SourceLocator

    init(bytes: [UInt8]) {
        self.locator = SourceLocator(bytes: bytes)
    }

    mutating func position(of offset: Int) -> SourcePosition? {
        guard offset >= 0, let (line, column) = self.locator.location(of: offset) else { return nil }
        return SourcePosition(line: line, column: column)
    }
}
