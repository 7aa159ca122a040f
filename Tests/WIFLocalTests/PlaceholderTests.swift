import Testing
@testable import WIFLocal
