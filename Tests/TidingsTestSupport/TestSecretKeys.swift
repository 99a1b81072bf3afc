/// Fixed secret keys for tests (64 hex characters, as `openssl rand -hex 32`
/// prints them). Never use them anywhere else.
package enum TestSecretKeys {
    package static let a = "6f1c0a3e9b7d24c85e0f3a61d29b7c4e8a15f0362dc9e7b4a0581f3d6c2e9b70"
    package static let b = "d83a5e1f07c49b26e3f18a5d0c7b92e4f6a3081d5c9e2b7f41a06d3e8c5b1f29"
}
