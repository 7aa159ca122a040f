// Signing is its own library; WIFCredentials users get it with `import WIFCredentials`, as before.
@_exported import WIFSigV4
