import Testing
@Suite struct WIFToolTests {}
