import WIFFileStore

// The engine set-up commands (`engine seaweedfs`, `engine ceph-rgw`) use these file-store types by
// their own names, without importing the library: they are moving to a target of their own, and
// their files stay as they are until then.

/// The file store's settings, ``WIFFileStore/ToolConfiguration``.
typealias ToolConfiguration = WIFFileStore.ToolConfiguration
/// ``WIFFileStore/StoreRuntime``: the HTTP client and the embedded stack of a command.
typealias StoreRuntime = WIFFileStore.StoreRuntime
/// ``WIFFileStore/SignIn``: session names and token files.
typealias SignIn = WIFFileStore.SignIn
