import Testing
@Suite struct PolicyEngineTests {}
